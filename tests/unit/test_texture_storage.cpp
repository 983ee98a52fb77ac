// The texture storage choice (reference: Textures): a backend says per texture
// shape whether it samples in hardware or in software; the choice is made at
// every call before the variant key is built, so a texture and the variant that
// samples it always agree, and each choice gets a variant of its own.
#include "runtime/memory/access.hpp"
#include "support/host_test_backend.hpp"
#include "support/per_backend.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace tack::lang;

// A host-memory backend that keeps textures of width 4 or more "in hardware" and records what it compiles.
class ChoosingBackend final : public tack_test::HostTestBackend {
 public:
  ChoosingBackend() : HostTestBackend(caps()) {}
  static tack::Capabilities caps() {
    return tack_test::host_test_capabilities("choosing", {tack::DType::F32, tack::DType::I32, tack::DType::I64});
  }
  std::unique_ptr<tack::runtime::CompiledVariant> compile(const tack::runtime::CompileInput& input) override {
    for (const tack::ir::Param& p : input.typed.params)
      if (p.kind == tack::ir::ParamKind::Texture) compiled_hardware.push_back(p.hardware_texture);
    return std::make_unique<tack::runtime::CompiledVariant>();
  }
  void launch(const tack::runtime::Launch&) override { ++launches; }
  bool texture_in_hardware(const std::array<std::int64_t, 3>& shape) const override { return shape[0] >= 4; }

  std::vector<bool> compiled_hardware;
  int launches = 0;
};

TEST(TextureStorage, ChosenPerShapeAndPartOfTheVariantKey) {
  auto backend = std::make_shared<ChoosingBackend>();
  tack::Device dev(backend);
  auto k = tack::kernel("tex_choice", [](Array out, Texture3D t) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(0.5f, 0.5f, 0.5f); });
  });
  tack::Array out = dev.zeros(tack::DType::F32, {4});
  tack::Texture small = tack::texture3d(dev.from_host(std::vector<float>(8, 1.0f)), {2, 2, 2});
  tack::Texture large = tack::texture3d(dev.from_host(std::vector<float>(64, 1.0f)), {4, 4, 4});
  k(out, small);
  k(out, large);
  k(out, small);  // the software variant again: no new compilation
  EXPECT_EQ(backend->compiled_hardware, (std::vector<bool>{false, true}));
  EXPECT_EQ(backend->variant_count(), 2u);
  EXPECT_EQ(backend->launches, 3);
}

// Each built-in backend's generated code samples as its texture_in_hardware answers (CUDA in hardware; the
// host backends and OpenCL in software).
TACK_PER_BACKEND_SUITE(BuiltInTextureStorage);

TEST_P(BuiltInTextureStorage, SamplesAsItStores) {
  auto k = tack::kernel("tex_soft", [](Array out, Texture3D t) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(0.5f, 0.5f, 0.5f); });
  });
  TACK_NEED_DEVICE();
  tack::Texture t = tack::texture3d(dev().from_host(std::vector<float>(8, 1.0f)), {2, 2, 2});
  std::string ir = tack::inspect(k, backend(), tack::ArraySpec{}, t).typed_ir;
  const bool hardware = tack::detail::Access::backend(dev())->texture_in_hardware({2, 2, 2});
  EXPECT_NE(ir.find(hardware ? "Texture3D<f32, hardware>" : "Texture3D<f32, software>"), std::string::npos) << ir;
  EXPECT_EQ(tack::detail::Access::storage(t)->image != nullptr, hardware);
  EXPECT_EQ(tack::detail::Access::storage(t)->copy == nullptr, hardware);
  tack::Array out = dev().zeros(tack::DType::F32, {4});
  k(out, t);
  EXPECT_EQ(out.to_host<float>(), std::vector<float>(4, 1.0f)) << "the kernel samples what was stored";
}

// An image stand-in that records its uploads.
class RecordingImage final : public tack::runtime::TextureImage {
 public:
  void upload(const tack::runtime::ArrayStorage& source) override {
    std::vector<float> v(static_cast<std::size_t>(source.size));
    source.buffer->read(0, v.data(), v.size() * sizeof(float));
    uploads.push_back(std::move(v));
  }
  std::vector<std::vector<float>> uploads;
};

// A backend with images: a texture it keeps in hardware is its image, uploaded at creation and at update(),
// with no f32 copy; the kernel call finds the device from the texture alone.
class ImageBackend final : public tack_test::HostTestBackend {
 public:
  ImageBackend() : HostTestBackend(ChoosingBackend::caps()) {}
  std::shared_ptr<tack::runtime::Buffer> allocate(std::size_t bytes, bool zeroed) override {
    ++allocations;
    return std::make_shared<tack::runtime::HostBuffer>(bytes, zeroed);
  }
  std::unique_ptr<tack::runtime::CompiledVariant> compile(const tack::runtime::CompileInput& input) override {
    auto v = std::make_unique<tack::runtime::CompiledVariant>();
    v->typed = input.typed;
    return v;
  }
  void launch(const tack::runtime::Launch& l) override {
    for (std::size_t i = 0; i < l.arg_count; ++i)
      if (l.args[i].texture) {
        EXPECT_TRUE(l.variant->typed.params[i].hardware_texture);
        launched_images.push_back(l.args[i].texture->image.get());
      }
  }
  bool texture_in_hardware(const std::array<std::int64_t, 3>&) const override { return true; }
  std::shared_ptr<tack::runtime::TextureImage> create_texture_image(const std::array<std::int64_t, 3>& shape) override {
    shapes.push_back(shape);
    auto image = std::make_shared<RecordingImage>();
    images.push_back(image);
    return image;
  }

  int allocations = 0;
  std::vector<std::array<std::int64_t, 3>> shapes;
  std::vector<std::shared_ptr<RecordingImage>> images;
  std::vector<const tack::runtime::TextureImage*> launched_images;
};

TEST(TextureStorage, HardwareTexturesAreImagesWithoutACopy) {
  auto backend = std::make_shared<ImageBackend>();
  tack::Device dev(backend);
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  tack::Array a = dev.from_host(values);
  const int allocations = backend->allocations;
  tack::Texture t = tack::texture3d(a, {4, 3, 2});
  EXPECT_EQ(backend->allocations, allocations) << "no f32 copy is allocated for an image";
  ASSERT_EQ(backend->images.size(), 1u);
  EXPECT_EQ(backend->shapes[0], (std::array<std::int64_t, 3>{4, 3, 2}));
  EXPECT_EQ(tack::detail::Access::storage(t)->image, backend->images[0]);
  EXPECT_EQ(tack::detail::Access::storage(t)->copy, nullptr);
  ASSERT_EQ(backend->images[0]->uploads.size(), 1u);
  EXPECT_EQ(backend->images[0]->uploads[0], values);

  a.fill(2.0f);
  EXPECT_EQ(backend->images[0]->uploads.size(), 1u) << "a write to the array does not reach the texture";
  t.update();
  ASSERT_EQ(backend->images[0]->uploads.size(), 2u);
  EXPECT_EQ(backend->images[0]->uploads[1], std::vector<float>(24, 2.0f));

  // A call whose only device argument is the texture runs on the texture's device, binding its image.
  auto k = tack::kernel("tex_only", [](Texture3D tex, Scalar n) {
    parallel_for(n, [&](Index i) { Value x = tex.sample(0.5f, 0.5f, 0.5f); (void)x; });
  });
  k(t, std::int64_t{3});
  ASSERT_EQ(backend->launched_images.size(), 1u);
  EXPECT_EQ(backend->launched_images[0], backend->images[0].get());
}

}  // namespace
