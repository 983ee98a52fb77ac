// Stream-ordered device buffers of the cuda backend.
#include "backends/cuda/cuda_memory.hpp"

#include "ir/check.hpp"

#include <tack/error.hpp>

#include <cstring>

namespace tack::runtime::cuda {
namespace cu = drivers::cu;

DeviceBuffer::DeviceBuffer(std::shared_ptr<Context> context, std::size_t bytes)
    : Buffer(bytes), context_(std::move(context)), ptr_(context_->allocate(bytes)) {}

DeviceBuffer::~DeviceBuffer() { context_->free(ptr_); }

void DeviceBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  if (!bytes) return;
  Context::Scope scope(*context_);
  // From pageable memory the driver stages the bytes before returning, so the caller's memory is free to change.
  cu::check(cu::api().cuMemcpyHtoDAsync_v2(ptr_ + offset, src, bytes, context_->stream()), "cuMemcpyHtoDAsync");
}

void DeviceBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  if (!bytes) return;
  // Wait in cuStreamSynchronize, which holds nothing a launch from another thread needs; a copy to pageable
  // memory behind queued work would wait inside the driver with the context held.
  context_->synchronize();
  Context::Scope scope(*context_);
  cu::check(cu::api().cuMemcpyDtoH_v2(dst, ptr_ + offset, bytes), "cuMemcpyDtoH");
}

void DeviceBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  if (!count) return;
  const cu::Api& api = cu::api();
  Context::Scope scope(*context_);
  cu::CUstream stream = context_->stream();
  switch (element_size) {
    case 1: {
      unsigned char v;
      std::memcpy(&v, element, 1);
      cu::check(api.cuMemsetD8Async(ptr_, v, count, stream), "cuMemsetD8Async");
      return;
    }
    case 2: {
      unsigned short v;
      std::memcpy(&v, element, 2);
      cu::check(api.cuMemsetD16Async(ptr_, v, count, stream), "cuMemsetD16Async");
      return;
    }
    case 4: {
      unsigned v;
      std::memcpy(&v, element, 4);
      cu::check(api.cuMemsetD32Async(ptr_, v, count, stream), "cuMemsetD32Async");
      return;
    }
    case 8: {
      unsigned half[2];
      std::memcpy(half, element, 8);
      if (half[0] == half[1]) {
        cu::check(api.cuMemsetD32Async(ptr_, half[0], 2 * count, stream), "cuMemsetD32Async");
        return;
      }
      // Each half of every element as a column of a pitched 2-D fill: one 32-bit word per 8-byte row.
      cu::check(api.cuMemsetD2D32Async(ptr_, 8, half[0], 1, count, stream), "cuMemsetD2D32Async");
      cu::check(api.cuMemsetD2D32Async(ptr_ + 4, 8, half[1], 1, count, stream), "cuMemsetD2D32Async");
      return;
    }
    default: TACK_UNREACHABLE("fill of an element size that is not 1, 2, 4 or 8 bytes");
  }
}

cu::CUdeviceptr device_pointer(const ArrayStorage& array) {
  const auto* buffer = dynamic_cast<const DeviceBuffer*>(array.buffer.get());
  if (!buffer) throw InvalidArgument("device_pointer: the array does not live on a cuda device");
  return buffer->pointer();
}

cu::CUdeviceptr device_pointer(const tack::Array& array) {
  if (!array.valid()) throw InvalidArgument("device_pointer of an empty tack::Array");
  return device_pointer(*array.storage());
}

}  // namespace tack::runtime::cuda
