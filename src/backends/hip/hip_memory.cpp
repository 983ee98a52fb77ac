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

void Device::write_buffer(const BufferCache::Block& block, std::size_t offset, const void* src, std::size_t bytes) {
  DeviceScope scope(info_.ordinal);
  // Queued behind the launches. From pageable memory HIP stages a small copy before returning and waits for the
  // stream before a large one (16 KB staged, 4 MB waited, ROCm 7.1), so either way the caller's memory is free
  // to change when this returns.
  hp::check(hp::api().hipMemcpyHtoDAsync(at(block.ptr, offset), const_cast<void*>(src), bytes, stream()),
            "hipMemcpyHtoDAsync");
}

void Device::read_buffer(const BufferCache::Block& block, std::size_t offset, void* dst, std::size_t bytes) {
  // Wait on an event first: a copy to pageable memory behind queued work waits inside hipMemcpyAsync with the
  // stream held, so another thread could not launch meanwhile (about 8 us when the stream is idle).
  synchronize();
  if (block.host) {  // pinned or managed: the host reads the memory itself once the stream is idle
    std::memcpy(dst, at(block.host, offset), bytes);
    return;
  }
  DeviceScope scope(info_.ordinal);
  hp::check(hp::api().hipMemcpyDtoHAsync(dst, at(block.ptr, offset), bytes, stream()), "hipMemcpyDtoHAsync");
  synchronize();  // a pageable copy has finished already; this makes it so for a pinned one too
}

void Device::fill_buffer(const BufferCache::Block& block, const void* element, std::size_t element_size,
                         std::size_t count) {
  const hp::Api& api = hp::api();
  DeviceScope scope(info_.ordinal);
  hp::hipStream_t stream = this->stream();
  switch (element_size) {
    case 1: {
      unsigned char v;
      std::memcpy(&v, element, 1);
      hp::check(api.hipMemsetD8Async(block.ptr, v, count, stream), "hipMemsetD8Async");
      return;
    }
    case 2: {
      unsigned short v;
      std::memcpy(&v, element, 2);
      hp::check(api.hipMemsetD16Async(block.ptr, v, count, stream), "hipMemsetD16Async");
      return;
    }
    case 4: {
      int v;
      std::memcpy(&v, element, 4);
      hp::check(api.hipMemsetD32Async(block.ptr, v, count, stream), "hipMemsetD32Async");
      return;
    }
    case 8: {
      int half[2];
      std::memcpy(half, element, 8);
      if (half[0] == half[1]) {
        hp::check(api.hipMemsetD32Async(block.ptr, half[0], 2 * count, stream), "hipMemsetD32Async");
        return;
      }
      // HIP has no pitched 32-bit fill: copy the pattern from the host, queued like any write.
      std::vector<unsigned char> pattern(count * 8);
      for (std::size_t i = 0; i < count; ++i) std::memcpy(pattern.data() + i * 8, element, 8);
      write_buffer(block, 0, pattern.data(), pattern.size());
      return;
    }
    default: TACK_UNREACHABLE("fill of an element size that is not 1, 2, 4 or 8 bytes");
  }
}

void Device::copy_buffer(const BufferCache::Block& from, const BufferCache::Block& to, std::size_t bytes) {
  DeviceScope scope(info_.ordinal);
  hp::check(hp::api().hipMemcpyDtoDAsync(to.ptr, from.ptr, bytes, stream()), "hipMemcpyDtoDAsync");
}

void* device_pointer(const ArrayStorage& array) { return device_buffer_of<DeviceBuffer>(array, "hip").handle().ptr; }

}  // namespace tack::backends::hip
