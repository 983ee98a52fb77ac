// Textures in the Level Zero texture hardware (reference: Textures, Level Zero
// row), over the stand-in loader: where the device has samplers and the shape
// fits maxImageDims3D, texture3d() makes a 3D R32 float image (zeImageCreate)
// and fills it from the array's device memory (zeCommandListAppendImageCopyFromMemory,
// queued, no wait), update() refills the same image, a launch binds the image
// handle in the texture's argument, and the image is destroyed once the queue
// has drained. Without samplers (Xe-HPC) or past maxImageDims3D the texture is
// an f32 copy sampled in software, decided before the variant key. The launches
// compile the generated OpenCL C with the real libocloc where it is installed
// (and skip where not); the stand-in never runs kernels. Linked into
// tack_level_zero_runtime_tests.
#include "support/fake_level_zero/adopted_device.hpp"
#include "support/fake_level_zero/fake_level_zero.hpp"

#include "backends/level_zero/level_zero_memory.hpp"
#include "drivers/level_zero_api.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;
namespace l0 = tack::backends::level_zero;
namespace ze = tack::drivers::ze;

std::vector<std::string> entries_from(int from) {
  std::vector<std::string> out;
  for (int i = from; i < fake_ze_log_size(); ++i) out.emplace_back(fake_ze_log_entry(i));
  return out;
}

int find_entry(const std::string& what, int from = 0) {
  for (int i = from; i < fake_ze_log_size(); ++i)
    if (what == fake_ze_log_entry(i)) return i;
  return -1;
}

const tack::Kernel& sample_kernel() {
  static const tack::Kernel k = tack::kernel("l0_tex_sample", [](Array out, Texture3D t) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(0.25f, 0.5f, 0.75f); });
  });
  return k;
}

std::vector<float> ramp(std::size_t n, float base) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + static_cast<float>(i);
  return v;
}

class LevelZeroTextureImage : public ::testing::Test {
 protected:
  void SetUp() override { fake_ze_reset(); }
  void TearDown() override {
    EXPECT_STREQ(fake_ze_misuse(), "") << "the backend misused the driver";
    fake_ze_reset();
  }
  void compile_or_skip(const std::function<void()>& first_launch) {
    try {
      first_launch();
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "libocloc is not available: " << e.what();
    }
  }
};

TEST_F(LevelZeroTextureImage, ImageMadeAndFilledFromDeviceMemory) {
  fake_ze_set_images(2048, 16);
  tack::Device d = tack_test::fresh_level_zero_device();
  const std::vector<float> data = ramp(24, 1.0f);
  tack::Array a = d.from_host(data);
  const int from = fake_ze_log_size();
  {
    tack::Texture t = tack::texture3d(a, {4, 3, 2});
    const auto& storage = *tack::detail::Access::storage(t);
    ASSERT_TRUE(storage.image) << "samplers and a shape within maxImageDims3D: an image";
    EXPECT_FALSE(storage.copy) << "no f32 copy beside the image";
    EXPECT_EQ(fake_ze_live_images(), 1);
    const int created = find_entry("image_create", from);
    const int copied = find_entry("image_copy", from);
    ASSERT_GE(created, 0);
    ASSERT_GT(copied, created);
    FakeZeOp op{};
    ASSERT_TRUE(fake_ze_log_op(copied, &op));
    EXPECT_EQ(op.src, l0::device_pointer(a)) << "copied from the array's device allocation";
    EXPECT_EQ(op.src_kind, 2) << "no host staging";
    EXPECT_EQ(op.bytes, data.size() * sizeof(float));
    EXPECT_EQ(std::memcmp(op.payload, data.data(), op.bytes), 0);
    for (const std::string& e : entries_from(from)) EXPECT_NE(e, "list_sync") << "the fill is queued, not waited for";

    // update(): the same image refilled with the array's new values.
    const std::vector<float> next(24, 5.0f);
    a.fill(5.0f);
    const int before_update = fake_ze_log_size();
    t.update();
    const int again = find_entry("image_copy", before_update);
    ASSERT_GE(again, 0);
    FakeZeOp op2{};
    ASSERT_TRUE(fake_ze_log_op(again, &op2));
    EXPECT_EQ(op2.dst, op.dst) << "updated in place: the handle a kernel receives stays valid";
    EXPECT_EQ(std::memcmp(op2.payload, next.data(), op2.bytes), 0);
    EXPECT_EQ(find_entry("image_create", before_update), -1);
  }
  // Dropped: destroyed only after the queue drained (a queued launch may still read it).
  const int destroyed = find_entry("image_destroy", from);
  ASSERT_GE(destroyed, 0);
  int last_sync = -1;
  for (int i = from; i < destroyed; ++i)
    if (std::string(fake_ze_log_entry(i)) == "list_sync") last_sync = i;
  EXPECT_GT(last_sync, find_entry("image_copy", from)) << "a wait between the last use and zeImageDestroy";
  EXPECT_EQ(fake_ze_live_images(), 0);
}

TEST_F(LevelZeroTextureImage, LaunchBindsTheImageHandle) {
  fake_ze_set_images(2048, 16);
  tack::Device d = tack_test::fresh_level_zero_device();
  tack::Array a = d.from_host(ramp(24, 0.0f));
  tack::Texture t = tack::texture3d(a, {4, 3, 2});
  tack::Array out = d.zeros(tack::DType::F32, {8});
  FakeZeOp op{};
  ASSERT_TRUE(fake_ze_log_op(find_entry("image_create"), &op));
  compile_or_skip([&] { sample_kernel()(out, t); });
  ASSERT_EQ(fake_ze_launch_count(), 1);
  FakeZeLaunch l{};
  ASSERT_TRUE(fake_ze_launch(0, &l));
  ASSERT_GE(l.arg_count, 2);
  EXPECT_EQ(l.arg_size[1], sizeof(ze::ze_image_handle_t));
  void* handle = nullptr;
  std::memcpy(&handle, l.args[1], sizeof handle);
  EXPECT_EQ(handle, op.dst) << "the texture's argument is its image handle";
}

// No samplers (Xe-HPC reports maxSamplers == 0), or an extent past maxImageDims3D: software, with an f32 copy and
// no image, and the launch passes the copy's pointer (the variant compiled for software).
TEST_F(LevelZeroTextureImage, SoftwareWithoutSamplersOrPastTheLimit) {
  struct Case {
    std::uint32_t dims, samplers;
    const char* why;
  };
  for (const Case& c : {Case{2048, 0, "maxSamplers == 0"}, Case{3, 16, "width 4 past maxImageDims3D 3"}}) {
    SCOPED_TRACE(c.why);
    fake_ze_reset();
    fake_ze_set_images(c.dims, c.samplers);
    tack::Device d = tack_test::fresh_level_zero_device();
    tack::Array a = d.from_host(ramp(24, 0.0f));
    tack::Texture t = tack::texture3d(a, {4, 3, 2});
    const auto& storage = *tack::detail::Access::storage(t);
    EXPECT_FALSE(storage.image);
    ASSERT_TRUE(storage.copy);
    EXPECT_EQ(fake_ze_count("zeImageCreate"), 0);
    EXPECT_FALSE(tack::detail::Access::backend(d)->texture_in_hardware({4, 3, 2}));
    tack::Array out = d.zeros(tack::DType::F32, {8});
    compile_or_skip([&] { sample_kernel()(out, t); });
    if (fake_ze_launch_count() == 0) return;  // skipped: no libocloc
    FakeZeLaunch l{};
    ASSERT_TRUE(fake_ze_launch(fake_ze_launch_count() - 1, &l));
    void* pointer = nullptr;
    std::memcpy(&pointer, l.args[1], sizeof pointer);
    EXPECT_EQ(pointer, l0::device_pointer(*storage.copy));
  }
}

}  // namespace
