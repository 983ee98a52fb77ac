// The cuda texture runtime over the stand-in driver (linked into
// tack_cuda_runtime_tests): a texture is a 3D CUDA array and a texture object,
// made at texture3d(), filled by a device-to-array copy queued on the stream
// at creation and at update() (updated in place, so the object a kernel holds
// stays valid), passed to a launch by value, and destroyed after the stream's
// queued work.
#include "cuda_runtime_support.hpp"

#include "backends/cuda/cuda_memory.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace cuda_test;

const tack::Kernel& sample_centre() {
  static const tack::Kernel k = tack::kernel("cuda_texture_probe", [](Array out, Texture3D t) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(0.5f, 0.5f, 0.5f); });
  });
  return k;
}

// The 3D copies into an array among the log entries from `from`, each checked to read `source` (width 2 f32s a row).
int copies_from(int from, std::uint64_t source) {
  int copies = 0;
  for (int i = from; i < fake_cuda_log_size(); ++i) {
    if (std::string(fake_cuda_log_entry(i)) != "memcpy3d") continue;
    ++copies;
    EXPECT_EQ(op_at(i).pointer, source) << "the image is filled from the array's device memory";
  }
  return copies;
}

TEST_F(CudaRuntime, ATextureIsAnArrayAndAnObjectFilledOnTheStreamAndUpdatedInPlace) {
  const int arrays = fake_cuda_live_arrays(), textures = fake_cuda_live_textures();
  tack::Array a = dev_.from_host(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  int from = fake_cuda_log_size();
  tack::Texture t = tack::texture3d(a, {2, 2, 2});
  EXPECT_EQ(fake_cuda_live_arrays(), arrays + 1);
  EXPECT_EQ(fake_cuda_live_textures(), textures + 1);
  EXPECT_EQ(tack::detail::Access::storage(t)->copy, nullptr) << "no f32 copy beside the image";
  EXPECT_EQ(copies_from(from, tack::backends::cuda::device_pointer(a)), 1);
  for (const std::string& e : log_entries(from)) EXPECT_NE(e, "stream_sync") << "the fill is queued";

  from = fake_cuda_log_size();
  t.update();
  EXPECT_EQ(copies_from(from, tack::backends::cuda::device_pointer(a)), 1);
  EXPECT_EQ(fake_cuda_live_arrays(), arrays + 1) << "updated in place";
  EXPECT_EQ(fake_cuda_live_textures(), textures + 1);
}

TEST_F(CudaRuntime, ALaunchPassesTheTextureObjectByValue) {
  tack::Texture t = tack::texture3d(dev_.from_host(std::vector<float>(8, 1.0f)), {2, 2, 2});
  tack::Array out = dev_.zeros(tack::DType::F32, {4});
  const int first = fake_cuda_launch_count();
  sample_centre()(out, t);
  const std::vector<FakeCudaLaunch> ls = launches(first);
  ASSERT_EQ(ls.size(), 1u);
  ASSERT_GE(ls[0].param_count, 2);
  EXPECT_EQ(param_u64(ls[0], 0), tack::backends::cuda::device_pointer(out));
  EXPECT_EQ(ls[0].param_size[1], 8u) << "a CUtexObject, by value";
  const std::uint64_t object = param_u64(ls[0], 1);
  EXPECT_NE(object, 0u);
  EXPECT_NE(object, tack::backends::cuda::device_pointer(out));
  // A second launch binds the same object: the image was updated in place, never remade.
  t.update();
  sample_centre()(out, t);
  ASSERT_EQ(fake_cuda_launch_count(), first + 2);
  EXPECT_EQ(param_u64(launches(first + 1)[0], 1), object);
}

TEST_F(CudaRuntime, ATextureIsDestroyedAfterTheStreamsQueuedWork) {
  const int arrays = fake_cuda_live_arrays(), textures = fake_cuda_live_textures();
  int from = 0;
  {
    tack::Texture t = tack::texture3d(dev_.from_host(std::vector<float>(8, 1.0f)), {2, 2, 2});
    tack::Array out = dev_.zeros(tack::DType::F32, {4});
    sample_centre()(out, t);
    from = fake_cuda_log_size();
  }
  EXPECT_EQ(fake_cuda_live_arrays(), arrays);
  EXPECT_EQ(fake_cuda_live_textures(), textures);
  EXPECT_GE(find_entry("stream_sync", from), 0) << "a queued launch may still sample the image";
}

}  // namespace
