// Row-wise kernels (issue 31, point 9): softmax and standardization of each row of a 4096 x 1024 f32 matrix, one
// work-item per row walking its contiguous row (a max, then a sum, then the writes). Timed against the C++ loop a
// performance engineer writes (OpenMP over rows, -march=native) in the same run, and again with the Tack kernels
// compiled for the scalar path (TACK_CPU_SIMD=0). The C++ keeps each row's sums in sequential order, as Tack's
// semantics require of a for_range (strict IEEE, no reassociation); only the max, exact in any order, and the
// element-wise writes are `omp simd`.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kRows = bench::quick() ? 64 : 4096;
const std::int64_t kCols = bench::quick() ? 256 : 1024;
const std::size_t kN = std::size_t(kRows * kCols);

struct Data {
  bench::Buffer<float> x = bench::uniform<float>(kN, -4.0f, 4.0f);
  bench::Buffer<float> y{kN};
  tack::Array tx = bench::to_device(x, {kRows, kCols}), ty = bench::cpu().zeros(tack::DType::F32, {kRows, kCols});
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

__attribute__((noinline)) void softmax_cpp(float* __restrict y, const float* __restrict x, std::int64_t rows,
                                           std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = xr[0];
#pragma omp simd reduction(max : m)
    for (std::int64_t j = 1; j < cols; ++j) m = std::max(m, xr[j]);
    float s = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) {
      const float e = std::exp(xr[j] - m);
      yr[j] = e;
      s += e;
    }
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j) yr[j] = yr[j] / s;
  }
}

__attribute__((noinline)) void standardize_cpp(float* __restrict y, const float* __restrict x, std::int64_t rows,
                                               std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float s = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) s += xr[j];
    const float mean = s / static_cast<float>(cols);
    float q = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) {
      const float d = xr[j] - mean;
      q += d * d;
    }
    const float den = std::sqrt(q / static_cast<float>(cols) + 1e-5f);
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - mean) / den;
  }
}

// y = exp(x - m) / s, with exp(x - m) stored in the second pass and divided in the third, as the C++ does.
tack::Kernel make_softmax(const char* name) {
  return tack::kernel(name, [](Array y, Array x) {
    Value cols = x.shape(1);
    parallel_for(x.shape(0), [&](Index r) {
      Value row = r * cols;
      Var m = x[row];
      for_range(1, cols, [&](Index j) { m = max(m, x[row + j]); });
      Var s = 0.0f;
      for_range(0, cols, [&](Index j) {
        Var e = exp(x[row + j] - m);
        y[row + j] = e;
        s = s + e;
      });
      for_range(0, cols, [&](Index j) { y[row + j] = y[row + j] / s; });
    });
  });
}

tack::Kernel make_standardize(const char* name) {
  return tack::kernel(name, [](Array y, Array x) {
    Value cols = x.shape(1);
    parallel_for(x.shape(0), [&](Index r) {
      Value row = r * cols;
      Var s = 0.0f;
      for_range(0, cols, [&](Index j) { s = s + x[row + j]; });
      Var mean = s / cast<float>(cols);
      Var q = 0.0f;
      for_range(0, cols, [&](Index j) {
        Value d = x[row + j] - mean;
        q = q + d * d;
      });
      Var den = sqrt(q / cast<float>(cols) + 1e-5f);
      for_range(0, cols, [&](Index j) { y[row + j] = (x[row + j] - mean) / den; });
    });
  });
}

const tack::Kernel& softmax_kernel(bool simd) {
  static const tack::Kernel gangs = make_softmax("softmax"), scalar = make_softmax("softmax_scalar");
  return simd ? gangs : scalar;
}
const tack::Kernel& standardize_kernel(bool simd) {
  static const tack::Kernel gangs = make_standardize("standardize"), scalar = make_standardize("standardize_scalar");
  return simd ? gangs : scalar;
}

using CppFn = void (*)(float*, const float*, std::int64_t, std::int64_t);

void run_cpp(benchmark::State& state, const char* name, CppFn f) {
  Data& d = data();
  bench::timed_loop(state, name, [&] { f(d.y.data(), d.x.data(), kRows, kCols); });
}

// simd = false compiles the kernel for the scalar path.
void run_tack(benchmark::State& state, const char* name, const tack::Kernel& (*kernel)(bool), CppFn f, bool simd) {
  Data& d = data();
  const tack::Kernel& k = kernel(simd);
  bench::compile_with_simd(simd, [&] { k(d.ty, d.tx); });
  f(d.y.data(), d.x.data(), kRows, kCols);
  // Tack's exp is not glibc's (a few ulp), and Tack may fuse q + d * d: relative room, as for likelihood.
  bench::check_close(name, d.ty.to_host<float>(), d.y.data(), kN, 1e-5, 1e-8);
  bench::timed_loop(state, name, [&] {
    k(d.ty, d.tx);
    bench::cpu().synchronize();
  });
}

void BM_softmax_cpp(benchmark::State& state) { run_cpp(state, "softmax/cpp", softmax_cpp); }
void BM_softmax_tack(benchmark::State& state) { run_tack(state, "softmax/tack", softmax_kernel, softmax_cpp, true); }
void BM_softmax_scalar_cpp(benchmark::State& state) { run_cpp(state, "softmax_scalar/cpp", softmax_cpp); }
void BM_softmax_scalar_tack(benchmark::State& state) {
  run_tack(state, "softmax_scalar/tack", softmax_kernel, softmax_cpp, false);
}
void BM_standardize_cpp(benchmark::State& state) { run_cpp(state, "standardize/cpp", standardize_cpp); }
void BM_standardize_tack(benchmark::State& state) {
  run_tack(state, "standardize/tack", standardize_kernel, standardize_cpp, true);
}
void BM_standardize_scalar_cpp(benchmark::State& state) { run_cpp(state, "standardize_scalar/cpp", standardize_cpp); }
void BM_standardize_scalar_tack(benchmark::State& state) {
  run_tack(state, "standardize_scalar/tack", standardize_kernel, standardize_cpp, false);
}

}  // namespace

BENCHMARK(BM_softmax_cpp)->Name("softmax/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_softmax_tack)->Name("softmax/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_softmax_scalar_cpp)->Name("softmax_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_softmax_scalar_tack)->Name("softmax_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_standardize_cpp)->Name("standardize/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_standardize_tack)->Name("standardize/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_standardize_scalar_cpp)->Name("standardize_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_standardize_scalar_tack)->Name("standardize_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
