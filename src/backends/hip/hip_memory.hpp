// Device memory of the hip backend: a Buffer over one device allocation (from
// the buffer cache or the runtime's pool). Writes and fills are queued on the
// device's stream with the launches and return; reads wait on an event first,
// then copy (reference: HIP, "How each backend queues and waits").
#pragma once

#include "backends/hip/hip_device.hpp"
#include "runtime/backend.hpp"

#include <tack/array.hpp>

#include <memory>

namespace tack::backends::hip {
using namespace tack::runtime;

class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(std::shared_ptr<Device> device, std::size_t bytes);
  ~DeviceBuffer() override;

  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  void* pointer() const { return block_.ptr; }
  NativeMemory native() const override {
    return {"hip", reinterpret_cast<std::uintptr_t>(block_.ptr), bytes(), device_->info().ordinal};
  }
  const std::shared_ptr<Device>& device() const { return device_; }

 private:
  std::shared_ptr<Device> device_;  // the device (and its queue) outlives its buffers
  BufferCache::Block block_;
};

// The device address of a hip array (for interop and benchmarks).
void* device_pointer(const ArrayStorage& array);

}  // namespace tack::backends::hip
