// DeviceBuffer: cl_mem storage through the backend's queue.
#include "backends/opencl/opencl_memory.hpp"

#include "backends/opencl/opencl_driver.hpp"
#include "ir/check.hpp"

namespace tack::backends::opencl {
using namespace tack::runtime;
namespace cl = opencl::driver;

void Queue::free(cl::cl_mem mem) noexcept { cl::api().clReleaseMemObject(mem); }

void Queue::write_buffer(cl::cl_mem mem, std::size_t offset, const void* src, std::size_t bytes) {
  write(mem, offset, src, bytes);
}

void Queue::read_buffer(cl::cl_mem mem, std::size_t offset, void* dst, std::size_t bytes) {
  read(mem, offset, dst, bytes);
}

void Queue::fill_buffer(cl::cl_mem mem, const void* element, std::size_t element_size, std::size_t count) {
  fill(mem, element, element_size, 0, count * element_size);  // 1, 2, 4 or 8 bytes: valid fill patterns
}

void Queue::copy_buffer(cl::cl_mem from, cl::cl_mem to, std::size_t bytes) {
  cl::check(cl::api().clEnqueueCopyBuffer(queue_, from, to, 0, 0, bytes, 0, nullptr, nullptr), "clEnqueueCopyBuffer");
}

}  // namespace tack::backends::opencl
