// Memory-bound streams over 2^25 f32: triad a = b + s*c, saxpy y = a*x + y,
// and the f32 sum and min (Tack's Array::sum/min<float>() against OpenMP reductions),
// and an f64 min in L2 against one thread's loop.
#include "common.hpp"

#include <cmath>
#include <limits>

namespace {

using namespace tack::lang;
const std::size_t kN = std::size_t{1} << (bench::quick() ? 16 : 25);

// ---- triad ------------------------------------------------------------------

struct Triad {
  bench::Buffer<float> a{kN}, b = bench::uniform<float>(kN, -1.0f, 1.0f), c = bench::uniform<float>(kN, -1.0f, 1.0f);
  tack::Array ta = bench::to_device(a), tb = bench::to_device(b), tc = bench::to_device(c);
  float s = 1.75f;
};
Triad& triad_data() {
  static auto* d = new Triad;
  return *d;
}

__attribute__((noinline)) void triad_cpp(float* __restrict a, const float* __restrict b, const float* __restrict c,
                                         float s, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

const tack::Kernel& triad_kernel() {
  static const tack::Kernel k = tack::kernel("triad", [](Array a, Array b, Array c, Scalar s) {
    parallel_for(a.size(), [&](Index i) { a[i] = b[i] + s * c[i]; });
  });
  return k;
}

void BM_triad_cpp(benchmark::State& state) {
  Triad& d = triad_data();
  double per = bench::timed_loop(state, "triad/cpp", [&] { triad_cpp(d.a.data(), d.b.data(), d.c.data(), d.s, kN); });
  bench::per_second(state, "GB/s", (3.0 * 4 * kN) / 1e9, per);
}

void BM_triad_tack(benchmark::State& state) {
  Triad& d = triad_data();
  const tack::Kernel& k = triad_kernel();
  static bool checked = [&] {
    k(d.ta, d.tb, d.tc, d.s);  // compiles
    triad_cpp(d.a.data(), d.b.data(), d.c.data(), d.s, kN);
    bench::check_close("triad", d.ta.to_host<float>(), d.a.data(), kN, 1e-6, 1e-7);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "triad/tack", [&] {
    k(d.ta, d.tb, d.tc, d.s);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GB/s", (3.0 * 4 * kN) / 1e9, per);
}

// ---- saxpy ------------------------------------------------------------------

struct Saxpy {
  bench::Buffer<float> x = bench::uniform<float>(kN, -1.0f, 1.0f), y = bench::uniform<float>(kN, -1.0f, 1.0f);
  tack::Array tx = bench::to_device(x), ty = bench::to_device(y);
  float a = 0.5f;
};
Saxpy& saxpy_data() {
  static auto* d = new Saxpy;
  return *d;
}

__attribute__((noinline)) void saxpy_cpp(float* __restrict y, const float* __restrict x, float a, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

const tack::Kernel& saxpy_kernel() {
  static const tack::Kernel k = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}

void BM_saxpy_cpp(benchmark::State& state) {
  Saxpy& d = saxpy_data();
  double per = bench::timed_loop(state, "saxpy/cpp", [&] { saxpy_cpp(d.y.data(), d.x.data(), d.a, kN); });
  bench::per_second(state, "GB/s", (3.0 * 4 * kN) / 1e9, per);
}

void BM_saxpy_tack(benchmark::State& state) {
  Saxpy& d = saxpy_data();
  const tack::Kernel& k = saxpy_kernel();
  static bool checked = [&] {
    // Both sides start from the same y (the C++ one has been updated in place by now).
    d.ty = bench::to_device(d.y);
    k(d.ty, d.tx, d.a);  // compiles
    saxpy_cpp(d.y.data(), d.x.data(), d.a, kN);
    bench::check_close("saxpy", d.ty.to_host<float>(), d.y.data(), kN, 1e-6, 1e-6);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "saxpy/tack", [&] {
    k(d.ty, d.tx, d.a);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GB/s", (3.0 * 4 * kN) / 1e9, per);
}

// ---- f32 sum ------------------------------------------------------------------

// Array::sum accumulates floats in f64 (include/tack/array.hpp), so the
// hand-written reduction does too.
struct Sum {
  bench::Buffer<float> x = bench::uniform<float>(kN, 0.0f, 1.0f);
  tack::Array tx = bench::to_device(x);
};
Sum& sum_data() {
  static auto* d = new Sum;
  return *d;
}

__attribute__((noinline)) float sum_cpp(const float* __restrict x, std::int64_t n) {
  double acc = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : acc)
  for (std::int64_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]);
  return static_cast<float>(acc);
}

void BM_sum_cpp(benchmark::State& state) {
  Sum& d = sum_data();
  double per = bench::timed_loop(state, "sum/cpp", [&] { benchmark::DoNotOptimize(sum_cpp(d.x.data(), kN)); });
  bench::per_second(state, "GB/s", (4.0 * kN) / 1e9, per);
}

void BM_sum_tack(benchmark::State& state) {
  Sum& d = sum_data();
  static bool checked = [&] {
    float t = d.tx.sum<float>(), c = sum_cpp(d.x.data(), kN);
    // DESIGN §4: within n * eps * sum(|x|) of the exact sum (x >= 0 here).
    double tol = static_cast<double>(kN) * 1.2e-7 * c;
    if (!(std::fabs(double(t) - double(c)) <= tol))
      bench::fail("sum: tack " + std::to_string(t) + " vs C++ " + std::to_string(c));
    std::fprintf(stderr, "[check] %-12s ok: %.9g vs %.9g\n", "sum", t, c);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "sum/tack", [&] { benchmark::DoNotOptimize(d.tx.sum<float>()); });
  bench::per_second(state, "GB/s", (4.0 * kN) / 1e9, per);
}

// ---- f32 sum in cache (issue 31, point 7) -------------------------------------

// 2^20 f32 (4 MiB: past L2, inside this host's L3), against the reference: a hand-written sum in 16 f32
// lanes, each thread over its share. Array::sum keeps f64 lanes (the same bits on every host): a convert and an
// f64 add for every 4 elements where this adds 8 in one instruction.
const std::int64_t kCachedN = std::int64_t{1} << (bench::quick() ? 14 : 20);

__attribute__((noinline)) float sum16_cpp(const float* __restrict x, std::int64_t n) {
  float total = 0;
#pragma omp parallel reduction(+ : total)
  {
    float acc[16] = {};
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < n / 16; ++b)
      for (int l = 0; l < 16; ++l) acc[l] += x[b * 16 + l];
    for (float a : acc) total += a;
  }
  for (std::int64_t i = n / 16 * 16; i < n; ++i) total += x[i];
  return total;
}

void BM_sum_cached_cpp(benchmark::State& state) {
  Sum& d = sum_data();
  double per =
      bench::timed_loop(state, "sum_cached/cpp", [&] { benchmark::DoNotOptimize(sum16_cpp(d.x.data(), kCachedN)); });
  bench::per_second(state, "GB/s", (4.0 * double(kCachedN)) / 1e9, per);
}

void BM_sum_cached_tack(benchmark::State& state) {
  Sum& d = sum_data();
  static const tack::Array part =
      bench::cpu().from_host(std::span<const float>(d.x.data(), std::size_t(kCachedN)), {kCachedN});
  const float t = part.sum<float>(), c = sum16_cpp(d.x.data(), kCachedN);
  if (!(std::fabs(double(t) - double(c)) <= double(kCachedN) * 1.2e-7 * c))
    bench::fail("sum_cached: tack " + std::to_string(t) + " vs C++ " + std::to_string(c));
  double per = bench::timed_loop(state, "sum_cached/tack", [&] { benchmark::DoNotOptimize(part.sum<float>()); });
  bench::per_second(state, "GB/s", (4.0 * double(kCachedN)) / 1e9, per);
}

// ---- f32 min ------------------------------------------------------------------

// Array::min skips NaN (include/tack/array.hpp); so does `x < m ? x : m`, which
// vectorizes to vminps (std::fmin, the same in C, does not: about 10x slower).
__attribute__((noinline)) float min_cpp(const float* __restrict x, std::int64_t n) {
  float m = std::numeric_limits<float>::infinity();
#pragma omp parallel for simd schedule(static) reduction(min : m)
  for (std::int64_t i = 0; i < n; ++i) m = x[i] < m ? x[i] : m;
  return m;
}

void BM_min_cpp(benchmark::State& state) {
  Sum& d = sum_data();
  double per = bench::timed_loop(state, "min/cpp", [&] { benchmark::DoNotOptimize(min_cpp(d.x.data(), kN)); });
  bench::per_second(state, "GB/s", (4.0 * kN) / 1e9, per);
}

void BM_min_tack(benchmark::State& state) {
  Sum& d = sum_data();
  static bool checked = [&] {
    float t = d.tx.min<float>(), c = min_cpp(d.x.data(), kN);
    if (t != c) bench::fail("min: tack " + std::to_string(t) + " vs C++ " + std::to_string(c));
    std::fprintf(stderr, "[check] %-12s ok: %.9g\n", "min", t);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "min/tack", [&] { benchmark::DoNotOptimize(d.tx.min<float>()); });
  bench::per_second(state, "GB/s", (4.0 * kN) / 1e9, per);
}

// ---- f64 min in L2 --------------------------------------------------------------

// 2^16 doubles (512 KiB): one of Array::min's blocks, which runs on the calling
// thread, against one thread of the same `x < m ? x : m`. The data stays in L2,
// so this times the loops themselves, which the memory-bound f32 min above cannot.
const std::size_t kInCache = std::size_t{1} << 16;
struct MinInCache {
  bench::Buffer<double> x = bench::uniform<double>(kInCache, -1.0, 1.0);
  tack::Array tx = bench::to_device(x);
};
MinInCache& min_in_cache_data() {
  static auto* d = new MinInCache;
  return *d;
}

__attribute__((noinline)) double min_f64_cpp(const double* __restrict x, std::int64_t n) {
  double m = std::numeric_limits<double>::infinity();
#pragma omp simd reduction(min : m)
  for (std::int64_t i = 0; i < n; ++i) m = x[i] < m ? x[i] : m;
  return m;
}

void BM_min_f64_l2_cpp(benchmark::State& state) {
  MinInCache& d = min_in_cache_data();
  double per =
      bench::timed_loop(state, "min_f64_l2/cpp", [&] { benchmark::DoNotOptimize(min_f64_cpp(d.x.data(), kInCache)); });
  bench::per_second(state, "GB/s", (8.0 * kInCache) / 1e9, per);
}

void BM_min_f64_l2_tack(benchmark::State& state) {
  MinInCache& d = min_in_cache_data();
  static bool checked = [&] {
    double t = d.tx.min<double>(), c = min_f64_cpp(d.x.data(), kInCache);
    if (t != c) bench::fail("min_f64_l2: tack " + std::to_string(t) + " vs C++ " + std::to_string(c));
    std::fprintf(stderr, "[check] %-12s ok: %.17g\n", "min_f64_l2", t);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "min_f64_l2/tack", [&] { benchmark::DoNotOptimize(d.tx.min<double>()); });
  bench::per_second(state, "GB/s", (8.0 * kInCache) / 1e9, per);
}

}  // namespace

BENCHMARK(BM_triad_cpp)->Name("triad/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_triad_tack)->Name("triad/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_saxpy_cpp)->Name("saxpy/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_saxpy_tack)->Name("saxpy/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sum_cpp)->Name("sum/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sum_tack)->Name("sum/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sum_cached_cpp)->Name("sum_cached/cpp")->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_cached_tack)->Name("sum_cached/tack")->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_min_cpp)->Name("min/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_min_tack)->Name("min/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_min_f64_l2_cpp)->Name("min_f64_l2/cpp")->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_min_f64_l2_tack)->Name("min_f64_l2/tack")->UseRealTime()->Unit(benchmark::kMicrosecond);
