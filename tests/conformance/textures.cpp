// Textures (tack::texture3d): tex.sample(u, v, w) is trilinear at normalized
// coordinates where 0 and 1 are the centres of the first and last texels.
// Sampling at texel centres returns texel values exactly; midpoints average
// their neighbours; coordinates outside [0, 1] clamp to the edge; the texture
// is a snapshot taken at creation and at update(), so writes to the array in
// between do not reach it.
#include "conformance/backend_param.hpp"

#include <array>
#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Textures);

// 5 x 3 x 2 texels: the centres are at u = i / 4, v = j / 2, w = k / 1, all
// exact in binary. Texel (x, y, z) holds 100 z + 10 y + x, so any average of
// neighbours is exact too.
constexpr std::int64_t kW = 5, kH = 3, kD = 2;

float texel(std::int64_t x, std::int64_t y, std::int64_t z) { return static_cast<float>(100 * z + 10 * y + x); }

std::vector<float> texels() {
  std::vector<float> t;
  for (std::int64_t z = 0; z < kD; ++z)
    for (std::int64_t y = 0; y < kH; ++y)
      for (std::int64_t x = 0; x < kW; ++x) t.push_back(texel(x, y, z));
  return t;
}

tack::Kernel sample_kernel() {
  return tack::kernel("tex_sample", [](Array out, Texture3D tex, Array u, Array v, Array w) {
    parallel_for(out.size(), [&](Index i) { out[i] = tex.sample(u[i], v[i], w[i]); });
  });
}

struct Coords {
  std::vector<float> u, v, w, want;
  std::vector<std::string> label;
  void add(float cu, float cv, float cw, float expect, std::string l) {
    u.push_back(cu), v.push_back(cv), w.push_back(cw), want.push_back(expect), label.push_back(std::move(l));
  }
};

std::vector<float> sample(const tack::Kernel& k, const tack::Device& d, const tack::Texture& tex, const Coords& c) {
  tack::Array out = zeros<float>(d, static_cast<std::int64_t>(c.u.size()));
  k(out, tex, d.from_host(c.u), d.from_host(c.v), d.from_host(c.w));
  return out.to_host<float>();
}

TEST_P(Textures, TexelCentresAreExact) {
  auto k = sample_kernel();
  Coords c;
  for (std::int64_t z = 0; z < kD; ++z)
    for (std::int64_t y = 0; y < kH; ++y)
      for (std::int64_t x = 0; x < kW; ++x)
        c.add(static_cast<float>(x) / (kW - 1), static_cast<float>(y) / (kH - 1), static_cast<float>(z) / (kD - 1),
              texel(x, y, z),
              "centre of texel (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")");
  expect_exact(
      "sample at texel centres",
      [&](const tack::Device& d) {
        tack::Texture tex = tack::texture3d(d.from_host(texels()), {kW, kH, kD});
        return sample(k, d, tex, c);
      },
      c.want, rows_from(c.label));
}

TEST_P(Textures, MidpointsInterpolate) {
  auto k = sample_kernel();
  Coords c;
  // Halfway between two texels along x, along y, along z, and in all three at once.
  c.add(0.125f, 0.0f, 0.0f, 0.5f, "between (0,0,0) and (1,0,0)");
  c.add(0.875f, 1.0f, 1.0f, 100 + 20 + 3.5f, "between (3,2,1) and (4,2,1)");
  c.add(0.5f, 0.25f, 0.0f, 2 + 5.0f, "between (2,0,0) and (2,1,0)");
  c.add(0.25f, 0.5f, 0.5f, 50 + 10 + 1.0f, "between (1,1,0) and (1,1,1)");
  c.add(0.375f, 0.75f, 0.5f, 50 + 15 + 1.5f, "centre of the cell (1..2, 1..2, 0..1)");
  // A quarter of the way: weights 0.75 and 0.25, still exact for these values.
  c.add(0.0625f, 0.0f, 0.0f, 0.25f, "a quarter from (0,0,0) towards (1,0,0)");
  c.add(0.0f, 0.0f, 0.25f, 25.0f, "a quarter from (0,0,0) towards (0,0,1)");
  expect_exact(
      "sample between texels",
      [&](const tack::Device& d) {
        tack::Texture tex = tack::texture3d(d.from_host(texels()), {kW, kH, kD});
        return sample(k, d, tex, c);
      },
      c.want, rows_from(c.label));
}

TEST_P(Textures, CoordinatesOutsideClampToTheEdge) {
  auto k = sample_kernel();
  Coords c;
  c.add(-0.5f, 0.0f, 0.0f, texel(0, 0, 0), "u = -0.5");
  c.add(-3.0f, -1.0f, -7.0f, texel(0, 0, 0), "all negative");
  c.add(1.5f, 0.0f, 0.0f, texel(4, 0, 0), "u = 1.5");
  c.add(2.0f, 9.0f, 1.25f, texel(4, 2, 1), "all beyond 1");
  c.add(1.0f, -0.25f, 0.0f, texel(4, 0, 0), "u = 1, v = -0.25");
  c.add(-1.0f, 0.5f, 2.0f, texel(0, 1, 1), "u < 0, v at a centre, w > 1");
  expect_exact(
      "sample outside [0, 1]",
      [&](const tack::Device& d) {
        tack::Texture tex = tack::texture3d(d.from_host(texels()), {kW, kH, kD});
        return sample(k, d, tex, c);
      },
      c.want, rows_from(c.label));
}

// The texture is a snapshot: a fill or a kernel writing the array after
// texture3d() is not seen until update().
TEST_P(Textures, UpdateTakesANewSnapshot) {
  auto k = sample_kernel();
  auto scale =
      tack::kernel("tex_scale_array", [](Array a) { parallel_for(a.size(), [&](Index i) { a[i] = a[i] * 2; }); });
  Coords c;
  c.add(0.0f, 0.0f, 0.0f, 0, "texel (0,0,0)");
  c.add(1.0f, 1.0f, 1.0f, texel(4, 2, 1), "texel (4,2,1)");
  c.add(0.25f, 0.5f, 0.0f, texel(1, 1, 0), "texel (1,1,0)");
  auto run = [&](const tack::Device& d) {
    tack::Array a = d.from_host(texels());
    tack::Texture tex = tack::texture3d(a, {kW, kH, kD});
    std::vector<float> r = sample(k, d, tex, c);  // the original values
    scale(a);                                     // the array doubles; the texture must not
    for (float x : sample(k, d, tex, c)) r.push_back(x);
    tex.update();  // now it does
    for (float x : sample(k, d, tex, c)) r.push_back(x);
    a.fill(7.0f);  // a host-side fill, then update again
    for (float x : sample(k, d, tex, c)) r.push_back(x);
    tex.update();
    for (float x : sample(k, d, tex, c)) r.push_back(x);
    return r;
  };
  std::vector<float> want;
  want.insert(want.end(), c.want.begin(), c.want.end());  // at creation
  want.insert(want.end(), c.want.begin(), c.want.end());  // unchanged by the array's doubling
  for (float x : c.want) want.push_back(2 * x);           // after update()
  for (float x : c.want) want.push_back(2 * x);           // unchanged by the fill
  want.insert(want.end(), {7.0f, 7.0f, 7.0f});            // after the second update()
  expect_exact("texture before / after update()", run, want, [](std::size_t i) {
    static const char* stage[] = {"at creation", "array doubled, no update", "after update()",
                                  "array filled with 7, no update", "after a second update()"};
    return std::string(stage[i / 3]) + ", row " + std::to_string(i % 3);
  });
}

TEST_P(Textures, ShapeAndDtypeAreChecked) {
  tack::Array f32 = dev().from_host(texels());
  EXPECT_THROW(tack::texture3d(f32, {kW, kH, kD + 1}), tack::Error) << "W*H*D must equal the array's size";
  if (has_dtype<double>()) {
    tack::Array f64 = dev().zeros(tack::DType::F64, {kW * kH * kD});
    EXPECT_THROW(tack::texture3d(f64, {kW, kH, kD}), tack::Error) << "textures hold f32 only";
  }
  tack::Texture t = tack::texture3d(f32, {kW, kH, kD});
  EXPECT_EQ(t.shape(), (std::array<std::int64_t, 3>{kW, kH, kD}));
}

}  // namespace
