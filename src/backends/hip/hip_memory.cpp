// Stream-ordered device buffers of the hip backend.
#include "backends/hip/hip_memory.hpp"

#include "backends/hip/hip_driver.hpp"
#include "ir/check.hpp"

#include <tack/error.hpp>

#include <cstring>
#include <vector>

namespace tack::backends::hip {
using namespace tack::runtime;
namespace hp = hip::driver;
namespace {

char* at(void* base, std::size_t offset) { return static_cast<char*>(base) + offset; }

}  // namespace

DeviceBuffer::DeviceBuffer(std::shared_ptr<Device> device, std::size_t bytes)
    : Buffer(bytes), device_(std::move(device)), block_(device_->allocate(bytes)) {}

DeviceBuffer::~DeviceBuffer() { device_->free(block_); }

void DeviceBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  if (!bytes) return;
  DeviceScope scope(device_->info().ordinal);
  // Queued behind the launches. From pageable memory HIP stages a small copy before returning and waits for the
  // stream before a large one (16 KB staged, 4 MB waited, ROCm 7.1), so either way the caller's memory is free
  // to change when this returns.
  hp::check(hp::api().hipMemcpyHtoDAsync(at(block_.ptr, offset), const_cast<void*>(src), bytes, device_->stream()),
            "hipMemcpyHtoDAsync");
}

void DeviceBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  if (!bytes) return;
  // Wait on an event first: a copy to pageable memory behind queued work waits inside hipMemcpyAsync with the
  // stream held, so another thread could not launch meanwhile (about 8 us when the stream is idle).
  device_->synchronize();
  DeviceScope scope(device_->info().ordinal);
  hp::check(hp::api().hipMemcpyDtoHAsync(dst, at(block_.ptr, offset), bytes, device_->stream()), "hipMemcpyDtoHAsync");
  device_->synchronize();  // a pageable copy has finished already; this makes it so for a pinned one too
}

void DeviceBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  if (!count) return;
  const hp::Api& api = hp::api();
  DeviceScope scope(device_->info().ordinal);
  hp::hipStream_t stream = device_->stream();
  switch (element_size) {
    case 1: {
      unsigned char v;
      std::memcpy(&v, element, 1);
      hp::check(api.hipMemsetD8Async(block_.ptr, v, count, stream), "hipMemsetD8Async");
      return;
    }
    case 2: {
      unsigned short v;
      std::memcpy(&v, element, 2);
      hp::check(api.hipMemsetD16Async(block_.ptr, v, count, stream), "hipMemsetD16Async");
      return;
    }
    case 4: {
      int v;
      std::memcpy(&v, element, 4);
      hp::check(api.hipMemsetD32Async(block_.ptr, v, count, stream), "hipMemsetD32Async");
      return;
    }
    case 8: {
      int half[2];
      std::memcpy(half, element, 8);
      if (half[0] == half[1]) {
        hp::check(api.hipMemsetD32Async(block_.ptr, half[0], 2 * count, stream), "hipMemsetD32Async");
        return;
      }
      // HIP has no pitched 32-bit fill: copy the pattern from the host, queued like any write.
      std::vector<unsigned char> pattern(count * 8);
      for (std::size_t i = 0; i < count; ++i) std::memcpy(pattern.data() + i * 8, element, 8);
      write(0, pattern.data(), pattern.size());
      return;
    }
    default: TACK_UNREACHABLE("fill of an element size that is not 1, 2, 4 or 8 bytes");
  }
}

void* device_pointer(const ArrayStorage& array) {
  const auto* buffer = dynamic_cast<const DeviceBuffer*>(array.buffer.get());
  if (!buffer) throw InvalidArgument("device_pointer: the array does not live on a hip device");
  return buffer->pointer();
}

}  // namespace tack::backends::hip
