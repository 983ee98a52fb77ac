// The C++ path tracer (examples/path_tracer/path_tracer_kernel.hpp: Vec3,
// functions returning structs, Random) by the white-furnace test: a convex
// diffuse sphere of albedo 0.6 in an environment of radiance 1 shows 0.6 on the
// sphere and 1 elsewhere; and a scene of five spheres renders as on interp.
#include "conformance/backend_param.hpp"

#include "../../examples/path_tracer/path_tracer_kernel.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(PathTracer);

struct Scene {
  std::vector<float> spheres, albedo, emission;
  float environment;
};

std::vector<float> render(const tack::Device& d, const Scene& s, int width, int height, int samples, int depth) {
  const std::int64_t n = static_cast<std::int64_t>(s.spheres.size() / 4);
  tack::Array image = d.zeros(tack::DType::F32, {height, width, 3});
  path_tracer::render_kernel()(image, d.from_host(s.spheres, {n, 4}), d.from_host(s.albedo, {n, 3}),
                               d.from_host(s.emission, {n, 3}), s.environment, samples, depth, std::uint64_t{2026});
  return image.to_host<float>();
}

// Whether the camera ray through (px, py) in [-1, 1]^2 meets the unit sphere at the origin, as the kernel's camera
// makes it.
bool sees_sphere(double px, double py, double aspect) {
  double d[3] = {0.364 * px * aspect, 0.364 * py, 1.0};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const double b = -4.0 * d[2] / len;  // origin (0, 0, -4)
  return b * b - (16.0 - 1.0) > 0.0;
}

TEST_P(PathTracer, WhiteFurnace) {
  const int width = 24, height = 18;
  const Scene furnace{{0, 0, 0, 1}, {0.6f, 0.6f, 0.6f}, {0, 0, 0}, 1.0f};
  const std::vector<float> image = render(dev(), furnace, width, height, 4, 6);
  int on = 0, off = 0;
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) {
      int corners = 0;
      for (int u = 0; u < 2; ++u)
        for (int v = 0; v < 2; ++v)
          corners += sees_sphere((col + u) * 2.0 / width - 1.0, 1.0 - (row + v) * 2.0 / height, double(width) / height);
      if (corners != 0 && corners != 4) continue;  // the sphere's edge crosses the pixel
      const double want = corners == 4 ? 0.6 : 1.0;
      (corners == 4 ? on : off) += 1;
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(image[static_cast<std::size_t>((row * width + col) * 3 + c)], want, 0.01 * want)
            << "pixel (" << row << ", " << col << ")";
    }
  EXPECT_GT(on, 20);
  EXPECT_GT(off, 20);
}

TEST_P(PathTracer, SeveralSpheresRenderAsOnInterp) {
  const Scene scene{{0,     -101, 0,    100,   -1.1f, -0.35f, 0.3f, 0.65f, 0.2f, -0.5f,
                     -0.4f, 0.5f, 1.2f, -0.6f, 0.5f,  0.4f,   0,    3,     0.5f, 1.2f},
                    {0.7f, 0.7f, 0.7f, 0.8f, 0.3f, 0.2f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f, 0.9f, 0, 0, 0},
                    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 5.5f, 5},
                    0.15f};
  const int width = 16, height = 12;
  const std::vector<float> got = render(dev(), scene, width, height, 2, 4);
  const tack::Device interp = tack::device("interp");
  const std::vector<float> want = render(interp, scene, width, height, 2, 4);
  int close = 0;
  double sum_got = 0, sum_want = 0;
  for (int p = 0; p < width * height; ++p) {
    bool all = true;
    for (int c = 0; c < 3; ++c) {
      const float g = got[static_cast<std::size_t>(p * 3 + c)], w = want[static_cast<std::size_t>(p * 3 + c)];
      ASSERT_TRUE(std::isfinite(g)) << "pixel " << p;
      all = all && std::abs(g - w) <= 1e-3 * std::abs(w) + 1e-4;
      sum_got += g;
      sum_want += w;
    }
    close += all;
  }
  // The same random streams everywhere: pictures differ only where a transcendental's last bits send a path elsewhere.
  EXPECT_GE(close, width * height * 97 / 100);
  EXPECT_GT(sum_want, 0.05 * 3 * width * height);
  EXPECT_NEAR(sum_got, sum_want, 0.01 * sum_want);
}

}  // namespace
