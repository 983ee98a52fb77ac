// A texture in the Level Zero texture hardware (reference: Textures, Level Zero
// row): a 3D image of one 32-bit float channel (zeImageCreate), read by the
// kernel through the OpenCL C generator's constant sampler (normalized
// coordinates, clamp to edge, linear filter). Built eagerly and updated in
// place (upload), so the handle a kernel receives stays valid for the
// texture's life.
//
// Axes as on CUDA: width is the array's fastest-varying index (texel (x, y, z)
// at (z * height + y) * width + x), so width, height, depth = shape[0],
// shape[1], shape[2], and read_imagef(image, sampler, (float4)(u, v, s, 0))
// reads u along the width.
#pragma once

#include "backends/level_zero/level_zero_queue.hpp"
#include "runtime/devices/backend.hpp"

#include <array>
#include <cstdint>
#include <memory>

namespace tack::backends::level_zero {
using namespace tack::runtime;

// Whether the device keeps a texture of this {width, height, depth} in an image: it has samplers
// (maxSamplers > 0: Xe-HPC reports none), every extent fits maxImageDims3D, and the loader has the image
// entry points. Otherwise the kernel samples the texture's f32 copy in software.
bool images_fit(const DeviceInfo& d, const std::array<std::int64_t, 3>& shape);

class TextureImage3D final : public TextureImage {
 public:
  // shape is {width, height, depth}, every extent positive and within images_fit. Throws BackendError when the
  // driver refuses the image.
  TextureImage3D(std::shared_ptr<Queue> queue, const std::array<std::int64_t, 3>& shape);
  // Waits for the queue (a queued launch may still read the image), then zeImageDestroy; errors are ignored, and
  // nothing is called once the process is exiting (the driver may be torn down).
  ~TextureImage3D() override;
  TextureImage3D(const TextureImage3D&) = delete;
  TextureImage3D& operator=(const TextureImage3D&) = delete;

  // Copies the f32 elements of `source`, a level_zero array of width * height * depth elements, into the image:
  // zeCommandListAppendImageCopyFromMemory from its device allocation (a USM pointer, so no host staging),
  // appended to the queue in order with the launches.
  void upload(const ArrayStorage& source) override;

  // The image handle, which a launch passes by value (zeKernelSetArgumentValue of the handle) for the kernel's
  // image3d_t parameter.
  drivers::ze::ze_image_handle_t handle() const { return image_; }

 private:
  std::shared_ptr<Queue> queue_;  // the queue, and with it the context, outlives its images
  std::array<std::int64_t, 3> shape_{};
  drivers::ze::ze_image_handle_t image_ = nullptr;
};

}  // namespace tack::backends::level_zero
