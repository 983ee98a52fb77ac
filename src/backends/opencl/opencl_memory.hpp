// Device memory of the opencl backend: a Buffer over one cl_mem, whose writes
// and fills are queued in order with launches and whose reads wait.
#pragma once

#include "backends/opencl/opencl_queue.hpp"
#include "runtime/backend.hpp"

#include <memory>

namespace tack::backends::opencl {
using namespace tack::runtime;

class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(std::shared_ptr<Queue> queue, std::size_t bytes);
  // Released once the commands queued on it have completed (OpenCL keeps a
  // buffer alive for the commands that use it).
  ~DeviceBuffer() override;

  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  drivers::cl::cl_mem mem() const { return mem_; }
  NativeMemory native() const override { return {"opencl", reinterpret_cast<std::uintptr_t>(mem_), bytes()}; }

 private:
  std::shared_ptr<Queue> queue_;  // the context must outlive its buffers
  drivers::cl::cl_mem mem_ = nullptr;
};

}  // namespace tack::backends::opencl
