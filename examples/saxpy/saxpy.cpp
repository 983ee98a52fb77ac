// saxpy: y = a * x + y on a Tack device, checked against a plain C++ loop.
//
//   tack_demo [--device NAME]
//
// Without --device it runs on tack::device(): TACK_DEVICE if set, else the default.
#include <tack/tack.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace tack::lang;  // the kernel language: Array, Scalar, Index, parallel_for, ...

int main(int argc, char** argv) {
  std::string name;  // empty: TACK_DEVICE, else the default device
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      name = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--device NAME]\n", argv[0]);
      return 2;
    }
  }

  // A kernel is an ordinary C++ function. Tack traces it once into its IR and
  // compiles it for the dtypes of each call (f32 here; f64 or i32 arrays work too).
  auto saxpy = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });

  try {
    tack::Device dev = tack::device(name);
    std::printf("device: %s (%s)\n", dev.name().c_str(), dev.capabilities().display_name.c_str());

    // Host data. These values make every a * x + y exact in f32, so any
    // correct device must match the C++ loop bit for bit.
    const int n = 1 << 16;
    const float a = 3.0f;
    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; ++i) {
      hx[i] = 0.25f * static_cast<float>(i % 1024);
      hy[i] = static_cast<float>(i % 77) - 38.0f;
    }

    tack::Array x = dev.from_host(hx);  // f32, shape {n}
    tack::Array y = dev.from_host(hy);
    saxpy(y, x, a);                               // queued; returns at once on a GPU
    std::vector<float> out = y.to_host<float>();  // waits for the launch

    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      float expected = a * hx[i] + hy[i];
      if (out[i] != expected) {
        if (wrong < 5) std::fprintf(stderr, "mismatch at %d: got %g, expected %g\n", i, out[i], expected);
        ++wrong;
      }
    }
    std::printf("saxpy: %d elements, %d mismatches: %s\n", n, wrong, wrong == 0 ? "OK" : "FAILED");
    return wrong == 0 ? 0 : 1;
  } catch (const tack::Error& e) {  // e.g. an unknown or unavailable device
    std::fprintf(stderr, "tack: %s\n", e.what());
    return 1;
  }
}
