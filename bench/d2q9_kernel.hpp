// The D2Q9 step as a Tack kernel, for every benchmark that runs or compiles
// it: periodic pull streaming, then d2q9.hpp's BGK collision, so it computes
// what the C++ version computes.
#pragma once

#include "d2q9.hpp"

#include <tack/tack.hpp>

#include <array>
#include <string>

namespace bench::d2q9 {

// `omega_scale`, when not 1, multiplies omega inside the kernel: a constant the
// compile benchmarks vary so that each kernel object is a new variant.
inline tack::Kernel make_kernel(std::string name, float omega_scale = 1.0f) {
  using namespace tack::lang;
  return tack::kernel(std::move(name), [omega_scale](Array fout, Array fin, Scalar omega) {
    Value h = fin.shape(1), w = fin.shape(2);
    parallel_for({h, w}, [&](Index i, Index j) {
      Value im = select(i == 0, h - 1, i - 1), ip = select(i == h - 1, Value(0), i + 1);
      Value jm = select(j == 0, w - 1, j - 1), jp = select(j == w - 1, Value(0), j + 1);
      std::array<Value, 9> f{0, 0, 0, 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < 9; ++k) {
        Value si = kEy[k] > 0 ? im : kEy[k] < 0 ? ip : i;
        Value sj = kEx[k] > 0 ? jm : kEx[k] < 0 ? jp : j;
        f[k] = fin(k, si, sj);
      }
      bgk<Value>(f, omega_scale == 1.0f ? Value(omega) : omega * omega_scale);
      for (int k = 0; k < 9; ++k) fout(k, i, j) = f[k];
    });
  });
}

}  // namespace bench::d2q9
