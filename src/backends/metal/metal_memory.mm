// Shared-storage MTLBuffers and 3D R32Float texture images.
#include "backends/metal/metal_memory.hpp"

#include "backends/metal/metal_device.hpp"
#include "backends/metal/metal_objc.h"
#include "backends/metal/metal_queue.hpp"
#include "ir/check.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <cstring>
#include <string>

namespace tack::backends::metal {
using namespace tack::runtime;

MetalBuffer::MetalBuffer(std::shared_ptr<Device> device, std::weak_ptr<Queue> queue, std::size_t bytes, bool zeroed)
    : Buffer(bytes), device_(std::move(device)), queue_(std::move(queue)), objects_(std::make_unique<BufferObjects>()) {
  const DeviceInfo& d = device_->info();
  if (d.max_buffer_length && bytes > d.max_buffer_length)
    throw InvalidArgument("metal: an array of " + std::to_string(bytes) + " bytes is larger than the " +
                          std::to_string(d.max_buffer_length) + " bytes one buffer may hold on " + d.name +
                          " (maxBufferLength)");
  @autoreleasepool {
    // Metal refuses a buffer of length 0; an empty array still gets a distinct buffer.
    const NSUInteger length = bytes ? bytes : 4;
    objects_->buffer = [device_->objects().device newBufferWithLength:length options:MTLResourceStorageModeShared];
    if (!objects_->buffer)
      throw BackendError("metal: out of memory allocating " + std::to_string(bytes) + " bytes on " + d.name +
                         " (newBufferWithLength)");
  }
  // Metal does not promise zeroed memory. No queued launch can use a buffer not yet returned, so no wait.
  if (zeroed && bytes) std::memset(contents(), 0, bytes);
}

MetalBuffer::MetalBuffer(Wrapped, std::shared_ptr<Device> device, std::weak_ptr<Queue> queue, std::size_t bytes,
                         std::shared_ptr<void> keep_alive)
    : Buffer(bytes),
      device_(std::move(device)),
      queue_(std::move(queue)),
      keep_alive_(std::move(keep_alive)),
      objects_(std::make_unique<BufferObjects>()) {
  mark_external();  // may overlap any other array's memory, and every launch that binds it completes
}

std::shared_ptr<MetalBuffer> MetalBuffer::wrap(std::shared_ptr<Device> device, std::weak_ptr<Queue> queue,
                                               std::uintptr_t address, std::size_t bytes,
                                               std::shared_ptr<void> keep_alive) {
  const std::string what = "array_from_ptr: " + address_text(address);
  // Metal cannot tell an object from another pointer: the address must be an Objective-C object, which is asked
  // whether it is a buffer before anything else is read from it.
  id object = (__bridge id) reinterpret_cast<void*>(address);
  if (![object conformsToProtocol:@protocol(MTLBuffer)])
    throw InvalidArgument(what + " is not an id<MTLBuffer>; pass one such as a metal array's share() gives");
  id<MTLBuffer> buffer = object;
  std::string refusal;
  @autoreleasepool {
    refusal =
        wrapped_buffer_refusal(buffer.device == device->objects().device, buffer.storageMode == MTLStorageModeShared,
                               buffer.length, bytes, device->info().name);
  }
  if (!refusal.empty()) throw InvalidArgument(what + " " + refusal);
  auto out = std::shared_ptr<MetalBuffer>(
      new MetalBuffer(Wrapped{}, std::move(device), std::move(queue), bytes, std::move(keep_alive)));
  out->objects_->buffer = buffer;  // a strong reference: the MTLBuffer lives as long as the array
  return out;
}

MetalBuffer::~MetalBuffer() = default;  // launches hold their buffers (Encoding::holds), so nothing to wait for

void* MetalBuffer::contents() const { return objects_->buffer.contents; }

void MetalBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  if (!bytes) return;
  TACK_CHECK(offset + bytes <= this->bytes());
  synchronize_all();  // a queued launch of any Metal backend may read or write it
  std::memcpy(static_cast<char*>(contents()) + offset, src, bytes);
}

void MetalBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  if (!bytes) return;
  TACK_CHECK(offset + bytes <= this->bytes());
  synchronize_all();
  std::memcpy(dst, static_cast<const char*>(contents()) + offset, bytes);
}

void MetalBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  if (!count) return;
  TACK_CHECK(count * element_size <= bytes());
  synchronize_all();
  auto* p = static_cast<unsigned char*>(contents());
  // Doubling copies: log2(count) memcpy calls instead of one per element.
  std::memcpy(p, element, element_size);
  std::size_t done = element_size;
  const std::size_t total = count * element_size;
  while (done < total) {
    const std::size_t n = std::min(done, total - done);
    std::memcpy(p + done, p, n);
    done += n;
  }
}

bool MetalBuffer::copy_from(const Buffer& source, std::size_t bytes) {
  const auto* from = dynamic_cast<const MetalBuffer*>(&source);
  std::shared_ptr<Queue> queue = queue_.lock();
  if (!from || from->device_ != device_ || !queue) return false;
  TACK_CHECK(bytes <= this->bytes() && bytes <= from->bytes());
  if (!bytes) return true;
  // The command buffer (made by [queue commandBuffer]) retains both MTLBuffers until it completes.
  queue->encode([&](Encoding& e) {
    id<MTLBlitCommandEncoder> blit = [e.command_buffer blitCommandEncoder];
    [blit copyFromBuffer:from->objects().buffer
             sourceOffset:0
                 toBuffer:objects_->buffer
        destinationOffset:0
                     size:static_cast<NSUInteger>(bytes)];
    [blit endEncoding];
  });
  return true;
}

MetalBuffer* metal_buffer(const ArrayStorage& array) { return dynamic_cast<MetalBuffer*>(array.buffer.get()); }

NativeMemory MetalBuffer::native() const {
  return {"metal", reinterpret_cast<std::uintptr_t>((__bridge void*)objects_->buffer), bytes()};
}

TextureImage3D::TextureImage3D(std::shared_ptr<Queue> queue, const std::array<std::int64_t, 3>& shape)
    : queue_(queue), device_(queue->device()), shape_(shape), objects_(std::make_unique<TextureObjects>()) {
  const DeviceInfo& d = device_->info();
  for (int a = 0; a < 3; ++a)
    if (shape[a] <= 0 || shape[a] > d.max_texture3d[a])
      throw InvalidArgument("metal: a texture of " + shape_text(shape) + " exceeds the 3D texture limits " +
                            shape_text(d.max_texture3d) + " of " + d.name);
  @autoreleasepool {
    MTLTextureDescriptor* desc = [[MTLTextureDescriptor alloc] init];
    desc.textureType = MTLTextureType3D;
    desc.pixelFormat = MTLPixelFormatR32Float;       // one 32-bit float channel
    desc.width = static_cast<NSUInteger>(shape[0]);  // the array's fastest-varying index
    desc.height = static_cast<NSUInteger>(shape[1]);
    desc.depth = static_cast<NSUInteger>(shape[2]);
    desc.mipmapLevelCount = 1;
    desc.usage = MTLTextureUsageShaderRead;
    desc.storageMode = MTLStorageModePrivate;  // only the blit and the sampler touch it
    objects_->texture = [device_->objects().device newTextureWithDescriptor:desc];
    if (!objects_->texture)
      throw BackendError("metal: " + d.name + " made no 3D R32Float texture of " + shape_text(shape) +
                         " (newTextureWithDescriptor)");
  }
}

// Launches hold their images until they complete (Encoding::holds), so the texture goes when its last user has run.
TextureImage3D::~TextureImage3D() = default;

void TextureImage3D::upload(const ArrayStorage& source) {
  TACK_CHECK(source.dtype == DType::F32 && source.size == shape_[0] * shape_[1] * shape_[2]);
  MetalBuffer* from = metal_buffer(source);
  TACK_CHECK(from);
  const NSUInteger row = static_cast<NSUInteger>(shape_[0]) * sizeof(float);
  const NSUInteger image = row * static_cast<NSUInteger>(shape_[1]);
  std::shared_ptr<Queue> queue = queue_.lock();
  if (!queue) throw BackendError("metal: the texture's device is gone");
  std::shared_ptr<const void> keep_source = source.buffer;
  queue->encode([&](Encoding& e) {
    id<MTLBlitCommandEncoder> blit = [e.command_buffer blitCommandEncoder];
    // Tightly packed: texel (x, y, z) at (z * height + y) * width + x.
    [blit copyFromBuffer:from->objects().buffer
               sourceOffset:0
          sourceBytesPerRow:row
        sourceBytesPerImage:image
                 sourceSize:MTLSizeMake(static_cast<NSUInteger>(shape_[0]), static_cast<NSUInteger>(shape_[1]),
                                        static_cast<NSUInteger>(shape_[2]))
                  toTexture:objects_->texture
           destinationSlice:0
           destinationLevel:0
          destinationOrigin:MTLOriginMake(0, 0, 0)];
    [blit endEncoding];
    e.holds->push_back(keep_source);
  });
}

}  // namespace tack::backends::metal
