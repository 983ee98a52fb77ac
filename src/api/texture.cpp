// tack::texture3d: a texture owns an f32 snapshot of its array, taken at
// creation and at update(), so later writes to the array never reach it.
#include "runtime/memory/access.hpp"
#include "runtime/devices/backend.hpp"

#include <tack/error.hpp>
#include <tack/texture.hpp>

#include <vector>

namespace tack {
namespace {
void copy_snapshot(runtime::TextureStorage& t) {
  if (t.image) {
    t.image->upload(*t.source);  // the backend's copy into its image, ordered with its launches
    return;
  }
  std::size_t bytes = static_cast<std::size_t>(t.source->size) * sizeof(float);
  // On the device, queued with the launches: no host round trip and no wait.
  if (t.copy->buffer->copy_from(*t.source->buffer, bytes)) {
    // Memory handed outside Tack may change once this returns, so its snapshot completes first (as a launch does).
    if (t.source->buffer->shared()) t.source->backend->synchronize();
    return;
  }
  if (void* dst = t.copy->buffer->host_data()) {
    t.source->buffer->read(0, dst, bytes);
    return;
  }
  std::vector<float> staging(static_cast<std::size_t>(t.source->size));
  t.source->buffer->read(0, staging.data(), bytes);
  t.copy->buffer->write(0, staging.data(), bytes);
}
}  // namespace

Texture texture3d(const Array& array, std::array<std::int64_t, 3> shape) {
  if (!array.valid()) throw InvalidArgument("texture3d of an empty tack::Array");
  if (array.dtype() != DType::F32)
    throw TypeError("texture3d needs an f32 array (textures hold one 32-bit float channel), got " +
                    std::string(dtype_name(array.dtype())));
  for (std::int64_t d : shape)
    if (d <= 0)
      throw InvalidArgument("texture3d shape {" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + ", " +
                            std::to_string(shape[2]) + "} needs positive extents");
  std::int64_t texels = shape[0] * shape[1] * shape[2];
  if ((shape[0] > 0 && shape[1] > INT64_MAX / shape[0]) || shape[0] * shape[1] > INT64_MAX / shape[2] ||
      texels != array.size())
    throw InvalidArgument("texture3d shape {" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + ", " +
                          std::to_string(shape[2]) + "} does not match an array of " + std::to_string(array.size()) +
                          " elements (width * height * depth must equal its size)");
  auto t = std::make_shared<runtime::TextureStorage>();
  t->source = detail::Access::storage(array);
  t->shape = shape;
  runtime::Backend& backend = *detail::Access::storage(array)->backend;
  // In the device's texture hardware where the backend says so (reference: Textures): an image and no f32 copy.
  if (backend.texture_in_hardware(shape)) t->image = backend.create_texture_image(shape);
  if (!t->image) {
    auto copy = std::make_shared<runtime::ArrayStorage>(*detail::Access::storage(array));
    copy->buffer = backend.allocate(static_cast<std::size_t>(texels) * sizeof(float), false);
    t->copy = copy;
  }
  copy_snapshot(*t);
  return Texture(t);
}

Texture::Texture(std::shared_ptr<runtime::TextureStorage> s) : storage_(std::move(s)) {}

void Texture::update() {
  if (!storage_) throw InvalidArgument("update() of an empty tack::Texture");
  copy_snapshot(*storage_);
}

std::array<std::int64_t, 3> Texture::shape() const {
  if (!storage_) throw InvalidArgument("shape() of an empty tack::Texture");
  return storage_->shape;
}

Device Texture::device() const {
  if (!storage_) throw InvalidArgument("device() of an empty tack::Texture");
  return Device(storage_->source->backend);
}

}  // namespace tack
