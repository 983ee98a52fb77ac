// Buffers in host memory, 64-byte aligned, for backends that run on the host.
#pragma once

#include "runtime/backend.hpp"

namespace tack::runtime {

class HostBuffer final : public Buffer {
 public:
  HostBuffer(std::size_t bytes, bool zeroed);
  ~HostBuffer() override;
  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  void* host_data() override { return data_; }

 private:
  void* data_ = nullptr;
};

}  // namespace tack::runtime
