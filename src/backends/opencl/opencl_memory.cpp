// DeviceBuffer: cl_mem storage through the backend's queue.
#include "backends/opencl/opencl_memory.hpp"

#include "backends/opencl/opencl_driver.hpp"
#include "ir/check.hpp"

namespace tack::backends::opencl {
using namespace tack::runtime;

DeviceBuffer::DeviceBuffer(std::shared_ptr<Queue> queue, std::size_t bytes)
    : Buffer(bytes), queue_(std::move(queue)), mem_(queue_->create_buffer(bytes)) {}

DeviceBuffer::~DeviceBuffer() { opencl::driver::api().clReleaseMemObject(mem_); }

void DeviceBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  TACK_CHECK(offset <= this->bytes() && bytes <= this->bytes() - offset);
  queue_->write(mem_, offset, src, bytes);
}

void DeviceBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  TACK_CHECK(offset <= this->bytes() && bytes <= this->bytes() - offset);
  queue_->read(mem_, offset, dst, bytes);
}

void DeviceBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  TACK_CHECK(count * element_size <= bytes());
  // Element sizes are 1, 2, 4 or 8 bytes: valid fill patterns.
  queue_->fill(mem_, element, element_size, 0, count * element_size);
}

}  // namespace tack::backends::opencl
