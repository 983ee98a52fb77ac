// Level Zero 3D images for textures in the texture hardware.
#include "backends/level_zero/level_zero_texture.hpp"

#include "backends/level_zero/level_zero_driver.hpp"
#include "backends/level_zero/level_zero_memory.hpp"
#include "ir/check.hpp"

#include <tack/error.hpp>

namespace tack::backends::level_zero {
using namespace tack::runtime;
namespace ze = level_zero::driver;

bool images_fit(const DeviceInfo& d, const std::array<std::int64_t, 3>& shape) {
  const ze::Api& api = ze::api();
  if (d.max_samplers == 0 || !api.zeImageCreate || !api.zeImageDestroy || !api.zeCommandListAppendImageCopyFromMemory)
    return false;
  for (std::int64_t extent : shape)
    if (extent <= 0 || extent > static_cast<std::int64_t>(d.max_image_dims_3d)) return false;
  return true;
}

TextureImage3D::TextureImage3D(std::shared_ptr<Queue> queue, const std::array<std::int64_t, 3>& shape)
    : queue_(std::move(queue)), shape_(shape) {
  TACK_CHECK(images_fit(queue_->device(), shape));
  ze::ze_image_desc_t desc{};
  desc.stype = ze::ZE_STRUCTURE_TYPE_IMAGE_DESC;
  desc.flags = 0;  // read-only in kernels
  desc.type = ze::ZE_IMAGE_TYPE_3D;
  // One 32-bit float channel, read as (r, 0, 0, 1).
  desc.format = {ze::ZE_IMAGE_FORMAT_LAYOUT_32, ze::ZE_IMAGE_FORMAT_TYPE_FLOAT, ze::ZE_IMAGE_FORMAT_SWIZZLE_R,
                 ze::ZE_IMAGE_FORMAT_SWIZZLE_0, ze::ZE_IMAGE_FORMAT_SWIZZLE_0,  ze::ZE_IMAGE_FORMAT_SWIZZLE_1};
  desc.width = static_cast<std::uint64_t>(shape[0]);
  desc.height = static_cast<std::uint32_t>(shape[1]);
  desc.depth = static_cast<std::uint32_t>(shape[2]);
  desc.arraylevels = 0;
  desc.miplevels = 0;
  const DeviceInfo& d = queue_->device();
  ze::check(ze::api().zeImageCreate(d.context, d.device, &desc, &image_), "zeImageCreate");
}

TextureImage3D::~TextureImage3D() {
  if (!image_ || ze::exiting()) return;
  try {
    queue_->synchronize();  // a queued launch may still sample it
  } catch (const Error&) {
    // A drop cannot report; the failed wait surfaces again at the next one.
  }
  ze::api().zeImageDestroy(image_);
}

void TextureImage3D::upload(const ArrayStorage& source) {
  TACK_CHECK(source.dtype == DType::F32 && source.size == shape_[0] * shape_[1] * shape_[2]);
  queue_->copy_to_image(image_, device_pointer(source));
}

void Queue::copy_to_image(ze::ze_image_handle_t image, const void* from) {
  std::lock_guard lock(lock_);
  // The whole image (no region), tightly packed rows and slices, from a device allocation of this context.
  ordered(ze::api().zeCommandListAppendImageCopyFromMemory(list_, image, from, nullptr, nullptr, 0, nullptr),
          "zeCommandListAppendImageCopyFromMemory");
}

}  // namespace tack::backends::level_zero
