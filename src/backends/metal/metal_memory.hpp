// Memory of the metal backend (reference: Metal; "Launches are queued", Order;
// Textures). An array is one MTLBuffer in MTLStorageModeShared memory, which
// the host and the GPU address alike: its reads, writes and fills wait for
// every live metal queue (_synchronize_all) and then touch the memory
// directly, so they are ordered with the launches of any Metal backend that
// may use it. A texture's image is a 3D R32Float MTLTexture filled by a blit
// from the array's buffer, queued with the launches.
#pragma once

#include "runtime/devices/backend.hpp"

#include <tack/array.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace tack::backends::metal {
using namespace tack::runtime;

// Capabilities::dlpack_refusal_note of metal (reference: the Backend contract), appended where from_dlpack refuses
// a tensor metal cannot wrap: a kDLCPU one. Metal's own memory is host-addressable, so "cannot address it" would
// send a reader after the wrong problem.
inline constexpr const char* kDlpackRefusalNote =
    "Metal's own memory is host-addressable, but not the reverse: wrapping host memory as an MTLBuffer without a "
    "copy needs a page-aligned address and length, which host allocations have only by accident of size; copy it "
    "with Device::from_host instead";

// Why an id<MTLBuffer> from outside Tack cannot hold an array of `bytes` bytes on the device `device_name`, or ""
// where it can: it must be of that MTLDevice (a kernel binds only its own device's buffers), in shared storage (the
// host reads, writes and fills its contents() directly) and at least as long as the array. Plain values, so that
// it is tested where Metal does not run.
inline std::string wrapped_buffer_refusal(bool same_device, bool shared_storage, std::size_t length, std::size_t bytes,
                                          const std::string& device_name) {
  if (!same_device)
    return "is an MTLBuffer of another MTLDevice than this device's (" + device_name +
           "); pass one of this device, such as a metal array's share() gives";
  if (!shared_storage)
    return "is an MTLBuffer not in MTLStorageModeShared memory, whose contents the host cannot read or write "
           "directly; pass a shared one";
  if (length < bytes)
    return "is an MTLBuffer of " + std::to_string(length) + " bytes, but the array needs " + std::to_string(bytes);
  return {};
}

class Device;
class Queue;
struct BufferObjects;
struct TextureObjects;

class MetalBuffer final : public Buffer {
 public:
  // Throws InvalidArgument past the device's maxBufferLength, BackendError when Metal refuses the buffer.
  // `queue` is the backend's, which device-side copies into the buffer are encoded on.
  MetalBuffer(std::shared_ptr<Device> device, std::weak_ptr<Queue> queue, std::size_t bytes, bool zeroed);
  // Over memory outside Tack (array_from_ptr, a kDLMetal DLPack import): `address` is an id<MTLBuffer>, as share()
  // hands out. Throws InvalidArgument, with wrapped_buffer_refusal's reason, for one this device cannot use. The
  // buffer allocates nothing: it retains the id and `keep_alive` as long as the array, and is external.
  static std::shared_ptr<MetalBuffer> wrap(std::shared_ptr<Device> device, std::weak_ptr<Queue> queue,
                                           std::uintptr_t address, std::size_t bytes, std::shared_ptr<void> keep_alive);
  ~MetalBuffer() override;

  void write(std::size_t offset, const void* src, std::size_t bytes) override;
  void read(std::size_t offset, void* dst, std::size_t bytes) override;
  void fill(const void* element, std::size_t element_size, std::size_t count) override;
  // From another buffer of the same device: a blit, queued with the launches of the device's queue.
  bool copy_from(const Buffer& source, std::size_t bytes) override;
  // nullptr although the memory is host-visible: the host must wait for the queues first, which
  // read/write/fill do and a raw pointer would not.
  void* host_data() override { return nullptr; }

  BufferObjects& objects() const { return *objects_; }
  // The host address of the shared memory, for a caller that has waited (synchronize_all).
  void* contents() const;

  // The buffer as an unretained id<MTLBuffer> (Array::share(), the reference's export_memory(): in C++ that is
  // share(), since Array::export_memory() hands out a POSIX fd, which an MTLBuffer has none of).
  NativeMemory native() const override;

 private:
  struct Wrapped {};
  MetalBuffer(Wrapped, std::shared_ptr<Device> device, std::weak_ptr<Queue> queue, std::size_t bytes,
              std::shared_ptr<void> keep_alive);

  std::shared_ptr<Device> device_;
  std::weak_ptr<Queue> queue_;        // weak for the reason TextureImage3D's is
  std::shared_ptr<void> keep_alive_;  // a wrapped buffer's owner, released after the id (declared before it)
  std::unique_ptr<BufferObjects> objects_;
};

class TextureImage3D final : public TextureImage {
 public:
  // shape is {width, height, depth}, each within the device's 3D limit; BackendError when Metal refuses it.
  TextureImage3D(std::shared_ptr<Queue> queue, const std::array<std::int64_t, 3>& shape);
  ~TextureImage3D() override;

  // A blit from the f32 array `source` into the image, queued with the launches (in their order).
  void upload(const ArrayStorage& source) override;

  TextureObjects& objects() const { return *objects_; }
  const std::array<std::int64_t, 3>& shape() const { return shape_; }

 private:
  // Weak: a launch's completion handler may drop the last reference to the image, and must not take the
  // queue down with it there (its destructor waits for the queue). The texture's source array keeps the
  // backend, and so the queue, alive anyway.
  std::weak_ptr<Queue> queue_;
  std::shared_ptr<Device> device_;
  std::array<std::int64_t, 3> shape_{};
  std::unique_ptr<TextureObjects> objects_;
};

// The metal buffer behind an array, or nullptr when it lives elsewhere.
MetalBuffer* metal_buffer(const ArrayStorage& array);

}  // namespace tack::backends::metal
