// Device memory of the cuda backend: a Buffer over one stream-ordered device
// allocation. Writes and fills are queued on the context's stream with the
// launches and return; reads wait for the stream, then copy. The allocation is
// freed in stream order, so an array dropped while a queued launch still uses
// it outlives that launch.
#pragma once

#include "backends/cuda/cuda_context.hpp"
#include "runtime/backend.hpp"

#include <tack/array.hpp>

#include <memory>

namespace tack::runtime::cuda {

class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(std::shared_ptr<Context> context, std::size_t bytes);
  ~DeviceBuffer() override;

  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  drivers::cu::CUdeviceptr pointer() const { return ptr_; }
  const std::shared_ptr<Context>& context() const { return context_; }

 private:
  std::shared_ptr<Context> context_;  // the context outlives its buffers
  drivers::cu::CUdeviceptr ptr_ = 0;
};

// The device address of a cuda array (for benchmarks, interop and texture uploads).
drivers::cu::CUdeviceptr device_pointer(const ArrayStorage& array);
drivers::cu::CUdeviceptr device_pointer(const tack::Array& array);

}  // namespace tack::runtime::cuda
