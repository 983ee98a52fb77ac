// Volume rendering with a 3-D texture: a procedural density field is written by
// a kernel into an array, put in a tack::texture3d and ray-marched by another
// kernel. The field changes between the two frames; render_volume's
// tex.update() carries the change into the texture.
//
//   tack_volume [--device NAME] [--size PIXELS] [--volume TEXELS] [--step S] [--out DIR]
//
// Writes DIR/volume.png: the two frames side by side. Exit code 77 when the
// device's backend is unavailable here.
#include "../common/image.hpp"
#include "field.hpp"
#include "render_volume.hpp"

#include <tack/tack.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  std::string device, out = ".";
  std::int64_t size = 480, texels = 128;
  float step = 0.0075f;  // ray-marching step; the tests take large ones on the slow interpreter
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      device = argv[++i];
    else if (a == "--size" && i + 1 < argc)
      size = std::atoll(argv[++i]);
    else if (a == "--volume" && i + 1 < argc)
      texels = std::atoll(argv[++i]);
    else if (a == "--step" && i + 1 < argc)
      step = float(std::atof(argv[++i]));
    else if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--device NAME] [--size PIXELS] [--volume TEXELS] [--step S] [--out DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  if (size < 8 || texels < 4 || !(step > 0.001f)) return 2;

  try {
    tack::Device dev;
    try {
      dev = tack::device(device);
    } catch (const tack::BackendUnavailable& e) {
      std::fprintf(stderr, "skipped: %s\n", e.what());
      return 77;
    }
    std::printf("device: %s (%s)\n", dev.name().c_str(), dev.capabilities().display_name.c_str());

    tack::Array density = dev.zeros(tack::DType::F32, {texels, texels, texels});  // (z, y, x)
    tack::Texture tex = tack::texture3d(density, {texels, texels, texels});       // {width, height, depth}
    tack::Array frame = dev.zeros(tack::DType::F32, {size, size, 3});
    examples::Image img(static_cast<int>(2 * size), static_cast<int>(size));
    volume::Camera cam;

    const auto t0 = std::chrono::steady_clock::now();
    double frame_sum[2] = {0, 0};
    for (int f = 0; f < 2; ++f) {
      volume::fill_field(density, 1.3f * float(f));  // the array changes; the texture not yet
      volume::render_volume(tex, cam, frame, step);  // tex.update(), then ray marching
      const std::vector<float> rgb = frame.to_host<float>();
      for (std::int64_t y = 0; y < size; ++y)
        for (std::int64_t x = 0; x < size; ++x) {
          const float* p = &rgb[(y * size + x) * 3];
          img.set(int(f * size + x), int(y), {p[0], p[1], p[2]});
          frame_sum[f] += double(p[0]) + p[1] + p[2];
        }
    }
    // Had tex.update() not carried the new field into the texture, the second
    // frame would repeat the first.
    if (frame_sum[0] == frame_sum[1]) {
      std::fprintf(stderr, "FAILED: the two frames are identical: the texture did not follow its array\n");
      return 1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::filesystem::create_directories(out);
    const std::string path = out + "/volume.png";
    if (!img.write_png(path)) return 1;
    std::printf("rendered 2 frames of %lld x %lld pixels from a %lld^3 texture in %.2f s; wrote %s\n", (long long)size,
                (long long)size, (long long)texels, seconds, path.c_str());
    return 0;
  } catch (const tack::Error& e) {
    std::fprintf(stderr, "tack: %s\n", e.what());
    return 1;
  }
}
