// Textures on the hip backend, over the stand-in runtime (linked into
// tack_hip_runtime_tests). Where the device has image support and the shape
// fits its 3D limits, a texture is a 3D HIP array and a texture object
// (clamp, linear, normalized coordinates), filled by a device-to-array copy
// queued on the stream at creation and update(), destroyed after the stream's
// work. Elsewhere (a CDNA part without images, a shape past the limits) it is
// an f32 copy taken by hipMemcpyDtoDAsync, also queued, with no host round
// trip; a shared source's copy completes before returning.
#include "support/fake_hip/fake_hip.hpp"

#include "runtime/devices/backend.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

int count_of(const std::vector<std::string>& calls, const std::string& name) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), name));
}

const std::vector<float> kTexels{1, 2, 3, 4, 5, 6, 7, 8};

// A device of its own, made while the stand-in reports `image_support` and 3D extents up to `limit`.
tack::Device hip_device(int image_support, int limit = 16384) {
  fake_hip::state().image_support = image_support;
  fake_hip::state().max_texture3d = limit;
  tack::Device d = tack::device("hip", {{"device", std::int64_t{0}}});
  fake_hip::state().image_support = 1;
  fake_hip::state().max_texture3d = 16384;
  return d;
}

std::vector<float> snapshot_of(const tack::Texture& t) {
  std::vector<float> out(kTexels.size());
  tack::detail::Access::storage(t)->copy->buffer->read(0, out.data(), out.size() * sizeof(float));
  return out;
}

// The texels of the stand-in's only live 3D array.
std::vector<float> image_texels() {
  std::lock_guard lock(fake_hip::state().mutex);
  EXPECT_EQ(fake_hip::state().arrays.size(), 1u);
  return fake_hip::state().arrays.empty() ? std::vector<float>{} : fake_hip::state().arrays.begin()->second;
}

TEST(HipTextures, InTheTextureHardwareAnImageIsMadeFilledOnTheDeviceAndDestroyedAfterTheStream) {
  fake_hip::take_calls();
  {
    tack::Device d = hip_device(1);
    tack::Array a = d.from_host(kTexels);
    fake_hip::take_calls();
    tack::Texture t = tack::texture3d(a, {2, 2, 2});
    std::vector<std::string> calls = fake_hip::take_calls();
    EXPECT_EQ(count_of(calls, "hipMalloc3DArray"), 1);
    EXPECT_EQ(count_of(calls, "hipCreateTextureObject"), 1);
    EXPECT_EQ(count_of(calls, "hipMemcpy3DAsync"), 1);
    EXPECT_EQ(count_of(calls, "hipMemcpyDtoDAsync") + count_of(calls, "hipMemcpyDtoHAsync"), 0)
        << "no f32 copy beside the image, and nothing through the host";
    EXPECT_EQ(count_of(calls, "hipEventSynchronize"), 0) << "the upload is queued";
    EXPECT_EQ(tack::detail::Access::storage(t)->copy, nullptr);
    EXPECT_EQ(image_texels(), kTexels);
    {
      std::lock_guard lock(fake_hip::state().mutex);
      EXPECT_EQ(fake_hip::state().textures.size(), 1u);
    }

    a.fill(9.0f);
    EXPECT_EQ(image_texels(), kTexels) << "a write to the array stays out of the image";
    fake_hip::take_calls();
    t.update();
    calls = fake_hip::take_calls();
    EXPECT_EQ(count_of(calls, "hipMemcpy3DAsync"), 1);
    EXPECT_EQ(count_of(calls, "hipMalloc3DArray") + count_of(calls, "hipCreateTextureObject"), 0)
        << "updated in place, so the object a kernel holds stays valid";
    EXPECT_EQ(image_texels(), std::vector<float>(8, 9.0f));
    fake_hip::take_calls();
  }
  const std::vector<std::string> calls = fake_hip::take_calls();
  const auto wait = std::find(calls.begin(), calls.end(), "hipEventSynchronize");
  const auto destroy = std::find(calls.begin(), calls.end(), "hipDestroyTextureObject");
  ASSERT_NE(destroy, calls.end());
  EXPECT_LT(wait, destroy) << "a queued launch may still sample the image";
  EXPECT_EQ(count_of(calls, "hipFreeArray"), 1);
  std::lock_guard lock(fake_hip::state().mutex);
  EXPECT_TRUE(fake_hip::state().arrays.empty());
  EXPECT_TRUE(fake_hip::state().textures.empty());
}

TEST(HipTextures, TheKernelSamplesTheImageOnlyWhereTheDeviceHasImagesAndTheShapeFits) {
  using namespace tack::lang;
  const tack::Kernel k = tack::kernel("hip_texture_probe", [](Array out, Texture3D t) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(0.5f, 0.5f, 0.5f); });
  });
  const tack::Device with_images = hip_device(1), cdna = hip_device(0), small_limits = hip_device(1, 4);
  const std::array<std::int64_t, 3> shape{8, 1, 1};
  EXPECT_TRUE(tack::detail::Access::backend(with_images)->texture_in_hardware(shape));
  EXPECT_FALSE(tack::detail::Access::backend(cdna)->texture_in_hardware(shape)) << "no image support";
  EXPECT_FALSE(tack::detail::Access::backend(small_limits)->texture_in_hardware(shape)) << "width 8 past 4";
  // A texture holds the storage its device chose, and inspect (on the default device, extents up to 16384)
  // shows the code dispatch compiles for it.
  tack::Texture hardware = tack::texture3d(with_images.from_host(kTexels), shape);
  tack::Texture narrow = tack::texture3d(small_limits.from_host(kTexels), shape);
  tack::Texture wide = tack::texture3d(with_images.from_host(std::vector<float>(16385, 1.0f)), {16385, 1, 1});
  EXPECT_NE(tack::detail::Access::storage(hardware)->image, nullptr);
  EXPECT_EQ(tack::detail::Access::storage(narrow)->image, nullptr);
  EXPECT_EQ(tack::detail::Access::storage(wide)->image, nullptr);
  const std::string hardware_ir = tack::inspect(k, "hip", tack::ArraySpec{}, hardware).typed_ir;
  const std::string wide_ir = tack::inspect(k, "hip", tack::ArraySpec{}, wide).typed_ir;
  EXPECT_NE(hardware_ir.find("Texture3D<f32, hardware>"), std::string::npos) << hardware_ir;
  EXPECT_NE(wide_ir.find("Texture3D<f32, software>"), std::string::npos) << wide_ir;
}

TEST(HipTextures, InSoftwareTheCopyIsQueuedOnTheDeviceWithNoHostRoundTripOrWait) {
  tack::Device d = hip_device(0);  // a CDNA part: no image support
  tack::Array a = d.from_host(kTexels);
  fake_hip::take_calls();
  tack::Texture t = tack::texture3d(a, {2, 2, 2});
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count_of(calls, "hipMalloc3DArray"), 0);
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoDAsync"), 1);
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoHAsync"), 0) << "no read through the host";
  EXPECT_EQ(count_of(calls, "hipMemcpyHtoDAsync"), 0) << "no write from the host";
  EXPECT_EQ(count_of(calls, "hipEventSynchronize"), 0) << "the copy is queued, not waited for";
  EXPECT_EQ(snapshot_of(t), kTexels);

  a.fill(9.0f);
  EXPECT_EQ(snapshot_of(t), kTexels) << "a write to the array stays out";
  fake_hip::take_calls();
  t.update();
  calls = fake_hip::take_calls();
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoDAsync"), 1);
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoHAsync") + count_of(calls, "hipEventSynchronize"), 0);
  EXPECT_EQ(snapshot_of(t), std::vector<float>(8, 9.0f));
}

TEST(HipTextures, ASharedSourcesSoftwareCopyCompletesBeforeReturning) {
  tack::Device d = hip_device(0);
  tack::Array a = d.from_host(kTexels);
  a.share();
  fake_hip::take_calls();
  tack::Texture t = tack::texture3d(a, {2, 2, 2});
  std::vector<std::string> calls = fake_hip::take_calls();
  const auto copy = std::find(calls.begin(), calls.end(), "hipMemcpyDtoDAsync");
  ASSERT_NE(copy, calls.end());
  EXPECT_NE(std::find(copy, calls.end(), "hipEventSynchronize"), calls.end())
      << "memory outside Tack may change once texture3d returns, so the copy has completed";
}

}  // namespace
