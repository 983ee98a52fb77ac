// The HIP texture image: a 3D HIP array (one f32 channel) and its texture object.
#include "backends/hip/hip_texture.hpp"

#include "backends/hip/hip_driver.hpp"
#include "backends/hip/hip_memory.hpp"
#include "ir/check.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <string>

namespace tack::backends::hip {
using namespace tack::runtime;
namespace hp = hip::driver;

bool fits_texture_hardware(const DeviceInfo& device, const std::array<std::int64_t, 3>& shape) {
  if (!device.image_support) return false;
  for (int a = 0; a < 3; ++a)
    if (shape[a] <= 0 || shape[a] > device.max_texture3d[a]) return false;
  return true;
}

TextureImage3D::TextureImage3D(std::shared_ptr<Device> device, const std::array<std::int64_t, 3>& shape)
    : device_(std::move(device)), shape_(shape) {
  TACK_CHECK(device_ && fits_texture_hardware(device_->info(), shape));
  const hp::Api& api = hp::api();
  DeviceScope scope(device_->info().ordinal);
  const hp::hipChannelFormatDesc channel{32, 0, 0, 0, hp::hipChannelFormatKindFloat};
  const hp::hipExtent extent{static_cast<std::size_t>(shape[0]), static_cast<std::size_t>(shape[1]),
                             static_cast<std::size_t>(shape[2])};
  hp::hipError_t r = api.hipMalloc3DArray(&array_, &channel, extent, 0);
  if (r == hp::hipErrorOutOfMemory)
    throw BackendError("hip: out of device memory creating a texture of " + shape_text(shape) + " on " +
                       device_->info().name + " (hipMalloc3DArray)");
  hp::check(r, "hipMalloc3DArray");

  hp::hipResourceDesc resource{};
  resource.resType = hp::hipResourceTypeArray;
  resource.res.array.array = array_;
  hp::hipTextureDesc texture{};
  for (int& mode : texture.addressMode) mode = hp::hipAddressModeClamp;
  texture.filterMode = hp::hipFilterModeLinear;
  texture.readMode = hp::hipReadModeElementType;  // f32 texels read as f32
  texture.normalizedCoords = 1;
  r = api.hipCreateTextureObject(&object_, &resource, &texture, nullptr);
  if (r != hp::hipSuccess) {
    api.hipFreeArray(array_);
    array_ = nullptr;
    hp::check(r, "hipCreateTextureObject");
  }
}

TextureImage3D::~TextureImage3D() {
  try {
    // A queued launch may still sample the image: destroy it after the stream's work.
    device_->synchronize();
  } catch (...) {
    // A launch's error belongs to the next wait of the program, not to this destructor.
  }
  try {
    const hp::Api& api = hp::api();
    DeviceScope scope(device_->info().ordinal);
    if (object_) api.hipDestroyTextureObject(object_);
    if (array_) api.hipFreeArray(array_);
  } catch (...) {
    // The runtime may be gone (process exit).
  }
}

void TextureImage3D::upload(const ArrayStorage& source) {
  TACK_CHECK(source.dtype == DType::F32 && source.size == shape_[0] * shape_[1] * shape_[2]);
  DeviceScope scope(device_->info().ordinal);
  const std::size_t width = static_cast<std::size_t>(shape_[0]), height = static_cast<std::size_t>(shape_[1]);
  hp::hipMemcpy3DParms copy{};
  // Tightly packed: texel (x, y, z) at (z * height + y) * width + x.
  copy.srcPtr = {device_pointer(source), width * sizeof(float), width, height};
  copy.dstArray = array_;
  copy.extent = {width, height, static_cast<std::size_t>(shape_[2])};  // in elements, for an array
  copy.kind = hp::hipMemcpyDeviceToDevice;
  hp::check(hp::api().hipMemcpy3DAsync(&copy, device_->stream()), "hipMemcpy3DAsync");
}

}  // namespace tack::backends::hip
