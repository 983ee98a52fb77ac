// Mandelbrot set: a bounded for_range with break_ and Vars, coloured on the host.
//
//   tack_mandelbrot [--device NAME] [--size WIDTH] [--out DIR]   -> DIR/mandelbrot.png
#include "../common/image.hpp"

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

  // A smooth escape count per pixel (n + 1 - log2(log|z|)), or -1 inside the set.
  auto mandelbrot = tack::kernel("mandelbrot", [](ArrayOf<f32> out, ScalarOf<i32> max_iter) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index row, Index col) {
      Value h = cast<f32>(out.shape(0));
      Value cx = -0.75f + 3.0f * (cast<f32>(col) - 0.5f * cast<f32>(out.shape(1))) / (1.5f * h);
      Value cy = 1.0f - 2.0f * cast<f32>(row) / h;
      Var x = 0.0f, y = 0.0f;
      Var n = 0;
      for_range(0, max_iter, [&](Index) {
        Value x2 = x * x, y2 = y * y;
        if_(x2 + y2 > 256.0f, [&] { break_(); });  // far past 2: the smooth count is accurate
        y = 2.0f * x * y + cy;
        x = x2 - y2 + cx;
        n += 1;
      });
      Value smooth = cast<f32>(n) + 1.0f - log2(log(sqrt(x * x + y * y)));
      out(row, col) = select(n < max_iter, smooth, -1.0f);
    });
  });

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
