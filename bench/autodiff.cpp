// Differentiation (issue 30, docs/autodiff.md): adjoint kernels against their forward kernels in one run, the
// adjoint Jacobi against a hand-written C++/OpenMP adjoint of the same stencil, and an adjoint's cold compile
// against its forward kernel's. In the rows adjoint_saxpy, adjoint_jacobi, adjoint_lbm and adjoint_compile the
// "C++" column is the forward Tack kernel (the reference the ratios are of); adjoint_jacobi_cpp is the
// hand-written adjoint. TACK_CACHE=0 is set before the first Tack call, so each compile is cold; the variants
// the runs use stay in memory.
#include "common.hpp"
#include "d2q9_kernel.hpp"

#include <cstdlib>

namespace {

using namespace tack::lang;

// ---- saxpy ------------------------------------------------------------------------------------------------

const std::int64_t kS = bench::quick() ? 4096 : std::int64_t{1} << 24;

const tack::Kernel& saxpy_kernel() {
  static const tack::Kernel k = tack::kernel(
      "ad_saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}

struct Saxpy {
  tack::Array x = bench::to_device(bench::uniform<float>(kS, -1, 1)),
              y = bench::to_device(bench::uniform<float>(kS, -1, 1));
  tack::Array gx = bench::cpu().zeros(tack::DType::F32, {kS}), gy = bench::to_device(bench::uniform<float>(kS, -1, 1));
};
Saxpy& saxpy_data() {
  static auto* d = new Saxpy;
  return *d;
}

void BM_saxpy_forward(benchmark::State& state) {
  Saxpy& d = saxpy_data();
  bench::timed_loop(state, "adjoint_saxpy/cpp", [&] {
    saxpy_kernel()(d.y, d.x, 1.0001f);
    bench::cpu().synchronize();
  });
}

void BM_saxpy_adjoint(benchmark::State& state) {
  Saxpy& d = saxpy_data();
  const tack::Kernel adj = tack::adjoint(saxpy_kernel());
  bench::timed_loop(state, "adjoint_saxpy/tack", [&] {
    adj(d.y, d.x, 1.0001f, d.gy, d.gx);
    bench::cpu().synchronize();
  });
}

// ---- Jacobi -----------------------------------------------------------------------------------------------

const std::int64_t kJ = bench::quick() ? 128 : 2048;
const std::size_t kJN = std::size_t(kJ) * kJ;

const tack::Kernel& jacobi_kernel() {
  static const tack::Kernel k = tack::kernel("ad_jacobi", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
    });
  });
  return k;
}

struct Jacobi {
  bench::Buffer<float> in = bench::uniform<float>(kJN, 0, 1), gout = bench::uniform<float>(kJN, -1, 1);
  bench::Buffer<float> gin{kJN}, gout_work{kJN};
  tack::Array tin = bench::to_device(in, {kJ, kJ}), tout = bench::cpu().zeros(tack::DType::F32, {kJ, kJ});
  tack::Array tgin = bench::cpu().zeros(tack::DType::F32, {kJ, kJ}), tgout = bench::to_device(gout, {kJ, kJ});
};
Jacobi& jacobi_data() {
  static auto* d = new Jacobi;
  return *d;
}

// The adjoint as a performance engineer writes it: each input point gathers the output gradients of the
// (up to) four interior points that read it, then the interior output gradients are cleared. Only the two
// outermost rows and columns test which neighbours are interior; the rest is a branch-free loop the compiler
// vectorizes (the same sums in the same order).
__attribute__((noinline)) void jacobi_adjoint_cpp(float* __restrict gin, float* __restrict gout, std::int64_t h,
                                                  std::int64_t w) {
  auto interior = [&](std::int64_t i, std::int64_t j) { return i >= 1 && i < h - 1 && j >= 1 && j < w - 1; };
  auto checked = [&](std::int64_t i, std::int64_t j) {
    float s = 0;
    if (interior(i - 1, j)) s += gout[(i - 1) * w + j];
    if (interior(i + 1, j)) s += gout[(i + 1) * w + j];
    if (interior(i, j - 1)) s += gout[i * w + j - 1];
    if (interior(i, j + 1)) s += gout[i * w + j + 1];
    gin[i * w + j] += 0.25f * s;
  };
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h; ++i) {
    if (i < 2 || i >= h - 2) {
      for (std::int64_t j = 0; j < w; ++j) checked(i, j);
      continue;
    }
    for (std::int64_t j = 0; j < std::min<std::int64_t>(2, w); ++j) checked(i, j);
    const float* up = gout + (i - 1) * w;
    const float* mid = gout + i * w;
    const float* down = gout + (i + 1) * w;
    float* out = gin + i * w;
#pragma omp simd
    for (std::int64_t j = 2; j < w - 2; ++j) out[j] += 0.25f * (((0.0f + up[j]) + down[j]) + mid[j - 1] + mid[j + 1]);
    for (std::int64_t j = std::max<std::int64_t>(2, w - 2); j < w; ++j) checked(i, j);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 1; i < h - 1; ++i)
    for (std::int64_t j = 1; j < w - 1; ++j) gout[i * w + j] = 0;
}

void BM_jacobi_forward(benchmark::State& state) {
  Jacobi& d = jacobi_data();
  bench::timed_loop(state, "adjoint_jacobi/cpp", [&] {
    jacobi_kernel()(d.tout, d.tin);
    bench::cpu().synchronize();
  });
}

void BM_jacobi_adjoint_cpp(benchmark::State& state) {
  Jacobi& d = jacobi_data();
  std::copy(d.gout.data(), d.gout.data() + kJN, d.gout_work.data());
  // After the first run the output gradient is cleared; the work per run is the same.
  bench::timed_loop(state, "adjoint_jacobi_cpp/cpp",
                    [&] { jacobi_adjoint_cpp(d.gin.data(), d.gout_work.data(), kJ, kJ); });
}

void BM_jacobi_adjoint(benchmark::State& state) {
  Jacobi& d = jacobi_data();
  const tack::Kernel adj = tack::adjoint(jacobi_kernel());
  static bool checked = [&] {
    // The adjoint's gradient equals the hand-written one from the same seed.
    tack::Array gin = bench::cpu().zeros(tack::DType::F32, {kJ, kJ}), gout = bench::to_device(d.gout, {kJ, kJ});
    adj(d.tout, d.tin, gout, gin);
    bench::Buffer<float> want(kJN), g(kJN);
    std::copy(d.gout.data(), d.gout.data() + kJN, g.data());
    jacobi_adjoint_cpp(want.data(), g.data(), kJ, kJ);
    bench::check_close("adjoint jacobi", gin.to_host<float>(), want.data(), kJN, 1e-5, 1e-6);
    return true;
  }();
  (void)checked;
  // Named for the row it is timed for: against the forward kernel, or against the hand-written adjoint.
  bench::timed_loop(state, state.range(0) == 1 ? "adjoint_jacobi_cpp/tack" : "adjoint_jacobi/tack", [&] {
    adj(d.tout, d.tin, d.tgout, d.tgin);
    bench::cpu().synchronize();
  });
}

// ---- D2Q9 LBM ---------------------------------------------------------------------------------------------

const std::int64_t kL = bench::quick() ? 64 : 512;

struct Lbm {
  tack::Array fa = bench::to_device(bench::uniform<float>(9 * kL * kL, 0.05f, 0.15f), {9, kL, kL});
  tack::Array fb = bench::cpu().zeros(tack::DType::F32, {9, kL, kL});
  tack::Array ga = bench::cpu().zeros(tack::DType::F32, {9, kL, kL});
  tack::Array gb = bench::to_device(bench::uniform<float>(9 * kL * kL, -1, 1), {9, kL, kL});
};
Lbm& lbm_data() {
  static auto* d = new Lbm;
  return *d;
}
const tack::Kernel& lbm_kernel() {
  static const tack::Kernel k = bench::d2q9::make_kernel("ad_lbm");
  return k;
}

void BM_lbm_forward(benchmark::State& state) {
  Lbm& d = lbm_data();
  bench::timed_loop(state, "adjoint_lbm/cpp", [&] {
    lbm_kernel()(d.fb, d.fa, 1.25f);
    bench::cpu().synchronize();
  });
}

void BM_lbm_adjoint(benchmark::State& state) {
  Lbm& d = lbm_data();
  const tack::Kernel adj = tack::adjoint(lbm_kernel());
  bench::timed_loop(state, "adjoint_lbm/tack", [&] {
    adj(d.fb, d.fa, 1.25f, d.gb, d.ga);
    bench::cpu().synchronize();
  });
}

// ---- cold compile -----------------------------------------------------------------------------------------

void BM_compile_forward(benchmark::State& state) {
  static int n = 0;  // each compile a new variant, across repetitions too
  bench::timed_loop(state, "adjoint_compile/cpp", [&] {
    tack::Kernel k = bench::d2q9::make_kernel("ad_lbm_cc", 1.0f + 1e-3f * static_cast<float>(++n));
    k.precompile(bench::cpu(), tack::ArraySpec{tack::DType::F32, 3}, tack::ArraySpec{tack::DType::F32, 3},
                 tack::ScalarSpec{tack::DType::F32});
  });
}

void BM_compile_adjoint(benchmark::State& state) {
  static int n = 0;
  bench::timed_loop(state, "adjoint_compile/tack", [&] {
    tack::Kernel k = bench::d2q9::make_kernel("ad_lbm_cc", 2.0f + 1e-3f * static_cast<float>(++n));
    const tack::ArraySpec f{tack::DType::F32, 3};
    tack::adjoint(k).precompile(bench::cpu(), f, f, tack::ScalarSpec{tack::DType::F32}, f, f);
  });
}

}  // namespace

BENCHMARK(BM_saxpy_forward)->Name("adjoint_saxpy/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_saxpy_adjoint)->Name("adjoint_saxpy/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jacobi_forward)->Name("adjoint_jacobi/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jacobi_adjoint_cpp)->Name("adjoint_jacobi_cpp/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jacobi_adjoint)->Name("adjoint_jacobi/tack")->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jacobi_adjoint)->Name("adjoint_jacobi_cpp/tack")->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lbm_forward)->Name("adjoint_lbm/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lbm_adjoint)->Name("adjoint_lbm/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
// Medians of three repetitions of five compiles each: one burst of a neighbour on a shared host moved a single
// repetition's mean by 1.5x.
BENCHMARK(BM_compile_forward)
    ->Name("adjoint_compile/cpp")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_compile_adjoint)
    ->Name("adjoint_compile/tack")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  setenv("TACK_CACHE", "0", 1);  // every compile cold (before the first Tack call)
  return bench::run_with_summary(argc, argv);
}
