// Buffers in host memory, 64-byte aligned, for backends that run on the host.
#pragma once

#include "runtime/devices/backend.hpp"

#include <memory>

namespace tack::runtime {

class HostBuffer final : public Buffer {
 public:
  HostBuffer(std::size_t bytes, bool zeroed);
  // Host memory from outside Tack (array_from_ptr): never freed here; keep_alive is released with the buffer.
  HostBuffer(void* data, std::size_t bytes, std::shared_ptr<void> keep_alive);
  ~HostBuffer() override;
  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  void* host_data() override { return data_; }
  NativeMemory native() const override { return {"host", reinterpret_cast<std::uintptr_t>(data_), bytes()}; }

 private:
  void* data_ = nullptr;
  bool owned_ = true;
  std::shared_ptr<void> keep_alive_;
};

}  // namespace tack::runtime
