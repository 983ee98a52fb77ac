// The CUDA texture image: a 3D CUDA array (one f32 channel) and its texture object.
#include "backends/cuda/cuda_texture.hpp"

#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_memory.hpp"
#include "ir/check.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <shared_mutex>
#include <string>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace cu = cuda::driver;

TextureImage3D::TextureImage3D(std::shared_ptr<Context> context, const std::array<std::int64_t, 3>& shape)
    : context_(std::move(context)), shape_(shape) {
  TACK_CHECK(context_ && shape[0] > 0 && shape[1] > 0 && shape[2] > 0);
  const std::array<std::int64_t, 3>& limit = context_->device().max_texture3d;
  for (int d = 0; d < 3; ++d)
    if (limit[d] > 0 && shape[d] > limit[d])
      throw InvalidArgument("cuda: a texture of " + shape_text(shape) + " exceeds the 3D texture limits " +
                            shape_text(limit) + " of " + context_->device().name);
  const cu::Api& api = cu::api();
  Context::Scope scope(*context_);

  cu::CUDA_ARRAY3D_DESCRIPTOR desc{};
  desc.Width = static_cast<std::size_t>(shape[0]);  // the fastest-varying index
  desc.Height = static_cast<std::size_t>(shape[1]);
  desc.Depth = static_cast<std::size_t>(shape[2]);
  desc.Format = cu::CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  desc.Flags = 0;
  cu::CUresult r = api.cuArray3DCreate_v2(&array_, &desc);
  if (r == cu::CUDA_ERROR_OUT_OF_MEMORY)
    throw BackendError("cuda: out of device memory creating a texture of " + shape_text(shape) + " on " +
                       context_->device().name + " (cuArray3DCreate)");
  cu::check(r, "cuArray3DCreate");

  cu::CUDA_RESOURCE_DESC resource{};
  resource.resType = cu::CU_RESOURCE_TYPE_ARRAY;
  resource.res.array.hArray = array_;
  cu::CUDA_TEXTURE_DESC texture{};
  for (int& mode : texture.addressMode) mode = cu::CU_TR_ADDRESS_MODE_CLAMP;
  texture.filterMode = cu::CU_TR_FILTER_MODE_LINEAR;
  texture.flags = cu::kTrsfNormalizedCoordinates;  // reads as float (no integer promotion flag)
  r = api.cuTexObjectCreate(&object_, &resource, &texture, nullptr);
  if (r != cu::CUDA_SUCCESS) {
    api.cuArrayDestroy(array_);
    array_ = nullptr;
    cu::check(r, "cuTexObjectCreate");
  }
}

TextureImage3D::~TextureImage3D() {
  try {
    const cu::Api& api = cu::api();
    Context::Scope scope(*context_);
    // A queued launch may still sample the image: destroy it after the stream's work.
    api.cuStreamSynchronize(context_->stream());
    if (object_) api.cuTexObjectDestroy(object_);
    if (array_) api.cuArrayDestroy(array_);
  } catch (...) {
    // The driver may be gone (process exit); the objects go with the context.
  }
}

void TextureImage3D::upload(const ArrayStorage& source) {
  TACK_CHECK(source.dtype == DType::F32 && source.size == shape_[0] * shape_[1] * shape_[2]);
  const cu::Api& api = cu::api();
  std::shared_lock hold(context_->relocation());
  Context::Scope scope(*context_);
  const std::size_t row = static_cast<std::size_t>(shape_[0]) * sizeof(float);
  cu::CUDA_MEMCPY3D copy{};
  copy.srcMemoryType = cu::CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = device_pointer(source);
  copy.srcPitch = row;  // tightly packed: texel (x, y, z) at (z * height + y) * width + x
  copy.srcHeight = static_cast<std::size_t>(shape_[1]);
  copy.dstMemoryType = cu::CU_MEMORYTYPE_ARRAY;
  copy.dstArray = array_;
  copy.WidthInBytes = row;
  copy.Height = static_cast<std::size_t>(shape_[1]);
  copy.Depth = static_cast<std::size_t>(shape_[2]);
  cu::check(api.cuMemcpy3DAsync_v2(&copy, context_->stream()), "cuMemcpy3DAsync");
}

}  // namespace tack::backends::cuda
