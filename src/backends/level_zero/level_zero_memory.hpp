// Device memory of the level_zero backend: a Buffer over one zeMemAllocDevice
// allocation. Writes and fills are appended to the queue with the launches and
// return; reads wait for the queue, then copy. The allocation is freed with the
// driver's deferred policy, so an array dropped while a queued launch still
// uses it outlives that launch (reference: "Lifetimes").
#pragma once

#include "backends/level_zero/level_zero_queue.hpp"
#include "runtime/backend.hpp"

#include <tack/array.hpp>

#include <memory>

namespace tack::backends::level_zero {
using namespace tack::runtime;

class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(std::shared_ptr<Queue> queue, std::size_t bytes);
  ~DeviceBuffer() override;

  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  void* pointer() const { return ptr_; }
  NativeMemory native() const override { return {"level_zero", reinterpret_cast<std::uintptr_t>(ptr_), bytes()}; }

 private:
  std::shared_ptr<Queue> queue_;  // the context outlives its buffers
  void* ptr_ = nullptr;
};

// The device address of a level_zero array (for tests, interop and benchmarks).
void* device_pointer(const ArrayStorage& array);
void* device_pointer(const tack::Array& array);

}  // namespace tack::backends::level_zero
