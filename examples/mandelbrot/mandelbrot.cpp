// Mandelbrot set: a bounded for_range with break_ and Vars, coloured on the host.
//
//   tack_mandelbrot [--device NAME] [--size WIDTH] [--out DIR]   -> DIR/mandelbrot.png
#include "../common/image.hpp"
#include "mandelbrot_kernel.hpp"

#include <tack/tack.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace tack::lang;

int main(int argc, char** argv) {
  std::string device, out = ".";
  std::int64_t width = 768;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--device")
      device = argv[i + 1];
    else if (a == "--size")
      width = std::atoll(argv[i + 1]);
    else if (a == "--out")
      out = argv[i + 1];
    else
      return 2;
  }
  const std::int64_t height = width * 2 / 3;

  tack::Kernel mandelbrot = mandelbrot_kernel();

  try {
    tack::Device dev;
    try {
      dev = tack::device(device);
    } catch (const tack::BackendUnavailable& e) {
      std::fprintf(stderr, "skipped: %s\n", e.what());
      return 77;
    }
    const int max_iter = 500;
    tack::Array counts = dev.zeros(tack::DType::F32, {height, width});
    mandelbrot(counts, max_iter);
    const std::vector<float> c = counts.to_host<float>();

    examples::Image img(static_cast<int>(width), static_cast<int>(height));
    for (std::int64_t i = 0; i < width * height; ++i)
      img.set(int(i % width), int(i / width),
              c[i] < 0 ? examples::Rgb{0, 0, 0} : examples::inferno(std::sqrt(c[i] / 60.0f)));
    std::filesystem::create_directories(out);
    if (!img.write_png(out + "/mandelbrot.png")) return 1;
    std::printf("device %s: wrote %s/mandelbrot.png (%lld x %lld)\n", dev.name().c_str(), out.c_str(), (long long)width,
                (long long)height);
    return 0;
  } catch (const tack::Error& e) {
    std::fprintf(stderr, "tack: %s\n", e.what());
    return 1;
  }
}
