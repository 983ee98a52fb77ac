// The device memory of a queued GPU backend (hip, level_zero, opencl): a
// Buffer over one allocation of its owner, the device or queue whose one
// stream orders every use of it, so writes and fills are queued and return,
// and reads wait (reference: "How each backend queues and waits"). The owner
// supplies the operations, which differ by API: allocate, free, write_buffer,
// read_buffer, fill_buffer, copy_buffer and native_memory over its handle. A wrapped
// buffer (wrap) is over memory outside Tack instead, which it never frees (reference:
// "Memory outside Tack"). CUDA's buffers are not of this kind: they also move
// between the pool and exportable memory.
#pragma once

#include "ir/check.hpp"
#include "runtime/devices/backend.hpp"

#include <tack/error.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace tack::runtime {

template <class Owner, class Handle>
class DeviceBufferOf final : public Buffer {
 public:
  DeviceBufferOf(std::shared_ptr<Owner> owner, std::size_t bytes)
      : Buffer(bytes), owner_(std::move(owner)), handle_(owner_->allocate(bytes)) {}
  // Over memory the owner allocated in another of its memory spaces: freed by the owner, as its own are.
  DeviceBufferOf(std::shared_ptr<Owner> owner, Handle handle, std::size_t bytes)
      : Buffer(bytes), owner_(std::move(owner)), handle_(handle) {}
  // Over memory outside Tack (array_from_ptr), which the caller has checked is of the owner's device: never
  // freed, and keep_alive is released with the buffer. It is shared, so every launch that binds it completes
  // before returning and none is queued on it when the buffer goes.
  static std::unique_ptr<DeviceBufferOf> wrap(std::shared_ptr<Owner> owner, Handle handle, std::size_t bytes,
                                              std::shared_ptr<void> keep_alive) {
    std::unique_ptr<DeviceBufferOf> b(new DeviceBufferOf(std::move(owner), handle, bytes, std::move(keep_alive)));
    b->mark_external();
    return b;
  }
  // The owner frees its own after the work queued on it (each API's deferred free, or a wait).
  ~DeviceBufferOf() override {
    if (!wrapped_) owner_->free(handle_);
  }

  void write(std::size_t offset, const void* src, std::size_t bytes) override {
    TACK_CHECK(offset <= this->bytes() && bytes <= this->bytes() - offset);
    if (bytes) owner_->write_buffer(handle_, offset, src, bytes);
  }
  void read(std::size_t offset, void* dst, std::size_t bytes) override {
    TACK_CHECK(offset <= this->bytes() && bytes <= this->bytes() - offset);
    if (bytes) owner_->read_buffer(handle_, offset, dst, bytes);
  }
  // Element sizes are 1, 2, 4 or 8 bytes.
  void fill(const void* element, std::size_t element_size, std::size_t count) override {
    TACK_CHECK(count * element_size <= bytes());
    if (count) owner_->fill_buffer(handle_, element, element_size, count);
  }
  // Between two buffers of one owner (one queue): the owner's device-side copy.
  bool copy_from(const Buffer& source, std::size_t bytes) override {
    const auto* from = dynamic_cast<const DeviceBufferOf*>(&source);
    if (!from || from->owner_ != owner_) return false;
    TACK_CHECK(bytes <= this->bytes() && bytes <= from->bytes());
    if (bytes) owner_->copy_buffer(from->handle_, handle_, bytes);
    return true;
  }
  NativeMemory native() const override { return owner_->native_memory(handle_, bytes()); }

  const Handle& handle() const { return handle_; }
  const std::shared_ptr<Owner>& owner() const { return owner_; }
  bool wrapped() const { return wrapped_; }

 private:
  DeviceBufferOf(std::shared_ptr<Owner> owner, Handle handle, std::size_t bytes, std::shared_ptr<void> keep_alive)
      : Buffer(bytes), owner_(std::move(owner)), handle_(handle), wrapped_(true), keep_alive_(std::move(keep_alive)) {}

  std::shared_ptr<Owner> owner_;  // the owner (and its queue) outlives its buffers
  Handle handle_;
  const bool wrapped_ = false;        // memory outside Tack: not freed here
  std::shared_ptr<void> keep_alive_;  // wrapped: whatever keeps that memory alive
};

// The buffer of `array` when it lives on `backend`'s device, else InvalidArgument naming `backend`.
template <class DeviceBuffer>
const DeviceBuffer& device_buffer_of(const ArrayStorage& array, const char* backend) {
  const auto* buffer = dynamic_cast<const DeviceBuffer*>(array.buffer.get());
  if (!buffer)
    throw InvalidArgument(std::string("device_pointer: the array does not live on a ") + backend + " device");
  return *buffer;
}

}  // namespace tack::runtime
