// Stencils: one 5-point Jacobi sweep on 4096^2 f32, and one D2Q9
// lattice-Boltzmann step (pull streaming + BGK collision, periodic) on 1024^2 f32.
#include "common.hpp"
#include "d2q9_kernel.hpp"

#include <array>

namespace {

using namespace tack::lang;

// ---- Jacobi -------------------------------------------------------------------

const std::int64_t kJ = bench::quick() ? 128 : 4096;
const std::size_t kJN = std::size_t(kJ) * kJ;

struct Jacobi {
  bench::Buffer<float> in = bench::uniform<float>(kJN, 0.0f, 1.0f), out = bench::Buffer<float>(kJN);
  tack::Array tin = bench::to_device(in, {kJ, kJ}), tout;
  Jacobi() {
    std::copy(in.data(), in.data() + kJN, out.data());  // the boundary stays as the input's
    tout = bench::to_device(out, {kJ, kJ});
  }
};
Jacobi& jacobi_data() {
  static auto* d = new Jacobi;
  return *d;
}

__attribute__((noinline)) void jacobi_cpp(float* __restrict out, const float* __restrict in, std::int64_t h,
                                          std::int64_t w) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h - 2; ++i)
    for (std::int64_t j = 0; j < w - 2; ++j)
      out[(i + 1) * w + j + 1] =
          0.25f * (in[i * w + j + 1] + in[(i + 2) * w + j + 1] + in[(i + 1) * w + j] + in[(i + 1) * w + j + 2]);
}

const tack::Kernel& jacobi_kernel() {
  static const tack::Kernel k = tack::kernel("jacobi", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
    });
  });
  return k;
}

void BM_jacobi_cpp(benchmark::State& state) {
  Jacobi& d = jacobi_data();
  double per = bench::timed_loop(state, "jacobi/cpp", [&] { jacobi_cpp(d.out.data(), d.in.data(), kJ, kJ); });
  bench::per_second(state, "GB/s", (2.0 * 4 * kJN) / 1e9, per);  // one read and one write per point
}

void BM_jacobi_tack(benchmark::State& state) {
  Jacobi& d = jacobi_data();
  const tack::Kernel& k = jacobi_kernel();
  static bool checked = [&] {
    k(d.tout, d.tin);  // compiles
    jacobi_cpp(d.out.data(), d.in.data(), kJ, kJ);
    bench::check_close("jacobi", d.tout.to_host<float>(), d.out.data(), kJN, 1e-6, 1e-7);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "jacobi/tack", [&] {
    k(d.tout, d.tin);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GB/s", (2.0 * 4 * kJN) / 1e9, per);
}

// ---- D2Q9 lattice Boltzmann ---------------------------------------------------------

using namespace bench::d2q9;
const std::int64_t kL = bench::quick() ? 64 : 1024;
const std::size_t kLN = std::size_t(kL) * kL;

struct Lbm {
  bench::Buffer<float> f0{9 * kLN}, fa{9 * kLN}, fb{9 * kLN};
  tack::Array ta, tb;
  float omega = 1.25f;
  Lbm() {
    // Near equilibrium at rest, with random perturbations.
    auto r = bench::uniform<float>(9 * kLN, -0.05f, 0.05f);
    for (std::size_t k = 0; k < 9; ++k)
      for (std::size_t c = 0; c < kLN; ++c) f0[k * kLN + c] = kW[k] * (1.0f + r[k * kLN + c]);
    std::copy(f0.data(), f0.data() + 9 * kLN, fa.data());
    ta = bench::to_device(f0, {9, kL, kL});
    tb = bench::to_device(f0, {9, kL, kL});
  }
};
Lbm& lbm_data() {
  static auto* d = new Lbm;
  return *d;
}

// Pull: population k at (i, j) comes from (i - ey_k, j - ex_k), periodic.
__attribute__((noinline)) void lbm_cpp(float* __restrict fout, const float* __restrict fin, float omega, std::int64_t h,
                                       std::int64_t w) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h; ++i) {
    for (std::int64_t j = 0; j < w; ++j) {
      std::int64_t im = i == 0 ? h - 1 : i - 1, ip = i == h - 1 ? 0 : i + 1;
      std::int64_t jm = j == 0 ? w - 1 : j - 1, jp = j == w - 1 ? 0 : j + 1;
      std::array<float, 9> f;
      for (int k = 0; k < 9; ++k) {
        std::int64_t si = kEy[k] > 0 ? im : kEy[k] < 0 ? ip : i;
        std::int64_t sj = kEx[k] > 0 ? jm : kEx[k] < 0 ? jp : j;
        f[k] = fin[(k * h + si) * w + sj];
      }
      bgk<float>(f, omega);
      for (int k = 0; k < 9; ++k) fout[(k * h + i) * w + j] = f[k];
    }
  }
}

const tack::Kernel& lbm_kernel() {
  static const tack::Kernel k = bench::d2q9::make_kernel("lbm_d2q9");
  return k;
}

// Per cell: nine f32 loaded, nine stored.
const double kLbmBytes = 2.0 * 9 * 4 * kLN;

void BM_lbm_cpp(benchmark::State& state) {
  Lbm& d = lbm_data();
  bool flip = false;
  double per = bench::timed_loop(state, "lbm/cpp", [&] {
    if (flip)
      lbm_cpp(d.fa.data(), d.fb.data(), d.omega, kL, kL);
    else
      lbm_cpp(d.fb.data(), d.fa.data(), d.omega, kL, kL);
    flip = !flip;
  });
  bench::per_second(state, "GB/s", (kLbmBytes) / 1e9, per);
}

void BM_lbm_tack(benchmark::State& state) {
  Lbm& d = lbm_data();
  const tack::Kernel& k = lbm_kernel();
  static bool checked = [&] {
    bench::Buffer<float> ref(9 * kLN);
    k(d.tb, d.ta, d.omega);  // compiles; ta holds f0
    lbm_cpp(ref.data(), d.f0.data(), d.omega, kL, kL);
    bench::check_close("lbm", d.tb.to_host<float>(), ref.data(), 9 * kLN, 1e-5, 1e-7);
    return true;
  }();
  (void)checked;
  bool flip = false;
  double per = bench::timed_loop(state, "lbm/tack", [&] {
    if (flip)
      k(d.ta, d.tb, d.omega);
    else
      k(d.tb, d.ta, d.omega);
    flip = !flip;
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GB/s", (kLbmBytes) / 1e9, per);
}

}  // namespace

BENCHMARK(BM_jacobi_cpp)->Name("jacobi/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jacobi_tack)->Name("jacobi/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lbm_cpp)->Name("lbm/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lbm_tack)->Name("lbm/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
