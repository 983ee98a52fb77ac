// Device memory of the cuda backend: a Buffer over one device allocation.
// Writes and fills are queued on the context's stream with the launches and
// return; reads wait for the stream, then copy. Ordinary arrays come from the
// stream-ordered pool and are freed in stream order, so an array dropped while a
// queued launch still uses it outlives that launch. An exportable array lives in
// virtual memory (cuda_virtual_memory.hpp), and a wrapped one in memory outside
// Tack, which it never frees.
#pragma once

#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_virtual_memory.hpp"
#include "runtime/devices/backend.hpp"

#include <tack/array.hpp>

#include <atomic>
#include <memory>

namespace tack::backends::cuda {
using namespace tack::runtime;

class DeviceBuffer final : public Buffer {
 public:
  // From the stream-ordered pool.
  DeviceBuffer(std::shared_ptr<Context> context, std::size_t bytes);
  // In exportable (virtual) memory.
  static std::shared_ptr<DeviceBuffer> exportable(std::shared_ptr<Context> context, std::size_t bytes);
  // In page-locked host memory the device maps (cuMemHostAlloc, "cuda_pinned") or in managed memory
  // (cuMemAllocManaged, "cuda_managed"): both host-addressable, so a read waits for the stream and copies with
  // memcpy instead of a device-to-host copy.
  static std::unique_ptr<DeviceBuffer> pinned(std::shared_ptr<Context> context, std::size_t bytes);
  static std::unique_ptr<DeviceBuffer> managed(std::shared_ptr<Context> context, std::size_t bytes);
  // Over device memory outside Tack; keep_alive is released with the buffer.
  static std::shared_ptr<DeviceBuffer> wrap(std::shared_ptr<Context> context, drivers::cu::CUdeviceptr ptr,
                                            std::size_t bytes, std::shared_ptr<void> keep_alive);
  ~DeviceBuffer() override;

  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  // From another buffer of the same context: cuMemcpyDtoDAsync on its stream.
  bool copy_from(const Buffer& source, std::size_t bytes) override;
  NativeMemory native() const override {
    return {"cuda", static_cast<std::uintptr_t>(pointer()), bytes(), context_->device().ordinal};
  }
  // The current address; read it under a shared hold of context()->relocation() when queuing work on it.
  drivers::cu::CUdeviceptr pointer() const { return ptr_.load(std::memory_order_acquire); }
  const std::shared_ptr<Context>& context() const { return context_; }

  // The memory as a file descriptor: an ordinary buffer is first moved, once, into exportable memory (after
  // the work queued on it, its contents copied). Marks the buffer shared. Throws InvalidArgument for memory
  // outside Tack, which Tack cannot export.
  ExportedMemory export_memory();

 private:
  enum class Origin { Pool, Virtual, Outside, Pinned, Managed };
  DeviceBuffer(std::shared_ptr<Context> context, std::size_t bytes, Origin origin);
  void queue_fill(const void* element, std::size_t element_size, std::size_t count);

  std::shared_ptr<Context> context_;  // the context outlives its buffers
  Origin origin_;                     // Pool becomes Virtual under the context's relocation lock
  const bool outside_;
  std::atomic<drivers::cu::CUdeviceptr> ptr_{0};
  std::unique_ptr<VirtualAllocation> virtual_;  // Origin::Virtual
  std::shared_ptr<void> keep_alive_;            // Origin::Outside
  void* host_ = nullptr;                        // Origin::Pinned and Managed: the host address of the memory
};

// The device address of a cuda array (for benchmarks, interop and texture uploads).
drivers::cu::CUdeviceptr device_pointer(const ArrayStorage& array);
drivers::cu::CUdeviceptr device_pointer(const tack::Array& array);

}  // namespace tack::backends::cuda
