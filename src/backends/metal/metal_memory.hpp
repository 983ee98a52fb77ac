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

namespace tack::backends::metal {
using namespace tack::runtime;

class Device;
class Queue;
struct BufferObjects;
struct TextureObjects;

class MetalBuffer final : public Buffer {
 public:
  // Throws InvalidArgument past the device's maxBufferLength, BackendError when Metal refuses the buffer.
  // `queue` is the backend's, which device-side copies into the buffer are encoded on.
  MetalBuffer(std::shared_ptr<Device> device, std::weak_ptr<Queue> queue, std::size_t bytes, bool zeroed);
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

  // The buffer as an unretained id<MTLBuffer> (Array::share(), the reference's export_memory()).
  NativeMemory native() const override;

 private:
  std::shared_ptr<Device> device_;
  std::weak_ptr<Queue> queue_;  // weak for the reason TextureImage3D's is
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
