// A Monte Carlo path tracer of diffuse and emissive spheres (the kernel in
// path_tracer_kernel.hpp, the twin of examples/python/path_tracer.py), written
// to a PNG.
//
//   tack_path_tracer [--device NAME] [--spp N] [--out DIR]   -> DIR/path_tracer.png
#include "../common/image.hpp"
#include "path_tracer_kernel.hpp"

#include <tack/tack.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

// The linear radiance as an sRGB value in [0, 1].
float srgb(float x) {
  x = std::clamp(x, 0.0f, 1.0f);
  return x <= 0.0031308f ? 12.92f * x : 1.055f * std::pow(x, 1.0f / 2.4f) - 0.055f;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device, out = ".";
  int samples = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--device")
      device = argv[i + 1];
    else if (a == "--spp")
      samples = std::atoi(argv[i + 1]);
    else if (a == "--out")
      out = argv[i + 1];
    else
      return 2;
  }
  // A lamp above three balls on a big floor sphere, under a dim sky (the Python example's SCENE).
  const std::vector<float> spheres = {0,     -101, 0,    100,   -1.1f, -0.35f, 0.3f, 0.65f, 0.2f, -0.5f,
                                      -0.4f, 0.5f, 1.2f, -0.6f, 0.5f,  0.4f,   0,    3,     0.5f, 1.2f};
  const std::vector<float> albedo = {0.7f, 0.7f, 0.7f, 0.8f, 0.3f, 0.2f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f, 0.9f, 0, 0, 0};
  const std::vector<float> emission = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 5.5f, 5};
  const int width = 160, height = 120, max_depth = 6;
  try {
    tack::Device dev;
    try {
      dev = tack::device(device);
    } catch (const tack::BackendUnavailable& e) {
      std::fprintf(stderr, "skipped: %s\n", e.what());
      return 77;
    }
    tack::Array image = dev.zeros(tack::DType::F32, {height, width, 3});
    path_tracer::render_kernel()(image, dev.from_host(spheres, {5, 4}), dev.from_host(albedo, {5, 3}),
                                 dev.from_host(emission, {5, 3}), 0.15f, samples, max_depth, std::uint64_t{2026});
    const std::vector<float> px = image.to_host<float>();
    examples::Image img(width, height);
    double sum = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const float* p = &px[static_cast<std::size_t>((y * width + x) * 3)];
        img.set(x, y, examples::Rgb{srgb(p[0]), srgb(p[1]), srgb(p[2])});
        sum += p[0] + p[1] + p[2];
      }
    std::filesystem::create_directories(out);
    if (!img.write_png(out + "/path_tracer.png")) return 1;
    const double mean = sum / (3.0 * width * height);
    std::printf("device %s: wrote %s/path_tracer.png (%dx%d, %d samples per pixel, mean radiance %.4f)\n",
                dev.name().c_str(), out.c_str(), width, height, samples, mean);
    return std::isfinite(mean) && mean > 0.05 ? 0 : 1;
  } catch (const tack::Error& e) {
    std::fprintf(stderr, "tack: %s\n", e.what());
    return 1;
  }
}
