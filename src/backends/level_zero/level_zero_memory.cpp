// Device buffers of the level_zero backend.
#include "backends/level_zero/level_zero_memory.hpp"

#include "runtime/access.hpp"

#include <tack/error.hpp>

namespace tack::backends::level_zero {
using namespace tack::runtime;

DeviceBuffer::DeviceBuffer(std::shared_ptr<Queue> queue, std::size_t bytes)
    : Buffer(bytes), queue_(std::move(queue)), ptr_(queue_->allocate(bytes)) {}

DeviceBuffer::~DeviceBuffer() { queue_->free(ptr_); }

void DeviceBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  queue_->write(static_cast<unsigned char*>(ptr_) + offset, src, bytes);
}

void DeviceBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  queue_->read(dst, static_cast<const unsigned char*>(ptr_) + offset, bytes);
}

void DeviceBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  queue_->fill(ptr_, element, element_size, element_size * count);
}

void* device_pointer(const ArrayStorage& array) {
  const auto* buffer = dynamic_cast<const DeviceBuffer*>(array.buffer.get());
  if (!buffer) throw InvalidArgument("device_pointer: the array does not live on a level_zero device");
  return buffer->pointer();
}

void* device_pointer(const tack::Array& array) {
  if (!array.valid()) throw InvalidArgument("device_pointer of an empty tack::Array");
  return device_pointer(*detail::Access::storage(array));
}

}  // namespace tack::backends::level_zero
