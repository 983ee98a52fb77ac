// The texture storage choice (reference: Textures): a backend says per texture
// shape whether it samples in hardware or in software; the choice is made at
// every call before the variant key is built, so a texture and the variant that
// samples it always agree, and each choice gets a variant of its own.
#include "runtime/backend.hpp"
#include "runtime/host_buffer.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace tack::lang;

// A host-memory backend that keeps textures of width 4 or more "in hardware" and records what it compiles.
class ChoosingBackend final : public tack::runtime::Backend {
 public:
  ChoosingBackend() : Backend(caps()) {}
  static tack::Capabilities caps() {
    tack::Capabilities c;
    c.name = "choosing";
    c.display_name = "test";
    c.supported_dtypes = {tack::DType::F32, tack::DType::I32, tack::DType::I64};
    return tack::runtime::derive_capabilities(c, {});
  }
  std::shared_ptr<tack::runtime::Buffer> allocate(std::size_t bytes, bool zeroed) override {
    return std::make_shared<tack::runtime::HostBuffer>(bytes, zeroed);
  }
  std::unique_ptr<tack::runtime::CompiledVariant> compile(const tack::ir::Kernel& typed,
                                                          const tack::runtime::VariantKey&) override {
    for (const tack::ir::Param& p : typed.params)
      if (p.kind == tack::ir::ParamKind::Texture3D) compiled_hardware.push_back(p.hardware_texture);
    return std::make_unique<tack::runtime::CompiledVariant>();
  }
  std::string source(const tack::ir::Kernel&) override { return ""; }
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

TEST(TextureStorage, BuiltInBackendsSampleInSoftware) {
  auto k = tack::kernel("tex_soft", [](Array out, Texture3D t) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(0.5f, 0.5f, 0.5f); });
  });
  for (const std::string& name : tack::backend_names()) {
    tack::Device dev;
    try {
      dev = tack::device(name);
    } catch (const tack::BackendUnavailable& e) {
      std::cout << "[ NOTE     ] " << name << " unavailable: " << e.what() << "\n";
      continue;
    }
    tack::Texture t = tack::texture3d(dev.from_host(std::vector<float>(8, 1.0f)), {2, 2, 2});
    std::string ir = tack::inspect(k, name, tack::ArraySpec{}, t).typed_ir;
    EXPECT_NE(ir.find("Texture3D<f32, software>"), std::string::npos) << name << ":\n" << ir;
  }
}

}  // namespace
