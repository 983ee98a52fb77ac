// The 16 x 16 tiled f32 matrix product: tiles of a and b in shared memory, two
// barriers per tile, n a multiple of 16. The tests of its lowering to work-item
// loops and of its results on every backend run it, and bench/bench_workgroups.cpp
// times it, so the benchmark measures the kernel the tests check.
#pragma once

#include <tack/tack.hpp>

#include <string>

namespace tack_test {

inline tack::Kernel tiled_matmul(std::string name) {
  using namespace tack::lang;
  return tack::kernel(std::move(name), [](Array c, Array a, Array b, Scalar n) {
    Value tiles = n / 16;
    workgroup_for(tiles * tiles, [&](Group g) {
      SharedArray as = g.shared<float>(256), bs = g.shared<float>(256);
      Value lid = g.local_id();
      Value tx = lid % 16, ty = lid / 16;
      Value row = (g.group_id() / tiles) * 16 + ty, col = (g.group_id() % tiles) * 16 + tx;
      Var acc = 0.0f;
      for_range(0, tiles, [&](Index t) {
        as[lid] = a[row * n + t * 16 + tx];
        bs[lid] = b[(t * 16 + ty) * n + col];
        g.barrier();
        for_range(0, 16, [&](Index k) { acc += as[ty * 16 + k] * bs[k * 16 + tx]; });
        g.barrier();
      });
      c[row * n + col] = acc;
    });
  });
}

}  // namespace tack_test
