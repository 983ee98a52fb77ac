// Device memory made through CUDA's virtual memory management API: a physical
// allocation (cuMemCreate) mapped at a reserved address. Unlike the stream-ordered
// pool's memory, it can leave the process as a POSIX file descriptor
// (reference: CUDA, Export). The mapping is released at once, not in stream
// order: its owner waits for the stream first.
#pragma once

#include "backends/cuda/cuda_context.hpp"
#include "support/no_copy.hpp"

#include <memory>

namespace tack::backends::cuda {
using namespace tack::runtime;

class VirtualAllocation : support::NoCopy {
 public:
  // At least `bytes` (rounded up to the device's granularity), readable and
  // writable by the context's device. BackendError naming the call on failure.
  VirtualAllocation(std::shared_ptr<Context> context, std::size_t bytes);
  ~VirtualAllocation();

  drivers::cu::CUdeviceptr pointer() const { return ptr_; }
  std::size_t size() const { return size_; }
  // A new file descriptor for the physical allocation, which the caller owns.
  int export_fd() const;

 private:
  void release() noexcept;

  std::shared_ptr<Context> context_;
  drivers::cu::CUmemGenericAllocationHandle handle_ = 0;
  drivers::cu::CUdeviceptr ptr_ = 0;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace tack::backends::cuda
