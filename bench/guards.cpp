// What Python's lazy conditional costs (issue 28 point 4). A Python kernel's
// `x[j] if j < n else 0.0` must not read x[j] where the guard is false, so the
// front end emits what this file writes in C++: a Var assigned in an if_ and
// an else (tack/_frontend/lazy.py; both front ends give the same IR). Where
// both sides are plain arithmetic (`v if v > 0 else 0.125 * v`) it emits a
// select. Each is timed against the C++ loop a programmer would write, with
// `?:`, in the same run.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kN = bench::quick() ? (1 << 16) : (1 << 22);
// The shifted read of a stencil's edge: the last kShift work-items find no neighbour.
constexpr std::int64_t kShift = 3;

__attribute__((noinline)) void guarded_cpp(float* __restrict y, const float* __restrict x, std::int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t j = i + kShift;
    y[i] = j < n ? x[j] : 0.0f;
  }
}

__attribute__((noinline)) void leaky_cpp(float* __restrict y, const float* __restrict x, std::int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v > 0.0f ? v : 0.125f * v;
  }
}

// y[i] = x[i + 3] if i + 3 < n else 0.0, as the Python front end traces it.
const tack::Kernel& guarded_kernel() {
  static const tack::Kernel k = tack::kernel("guarded", [](Array y, Array x) {
    parallel_for(y.size(), [&](Index i) {
      Value j = i + kShift;
      Var v = 0;
      if_(
          j < x.size(), [&] { v = x[j]; }, [&] { v = 0.0; });
      y[i] = v;
    });
  });
  return k;
}

// v = x[i]; y[i] = v if v > 0 else 0.125 * v: both sides safe, a select.
const tack::Kernel& leaky_kernel() {
  static const tack::Kernel k = tack::kernel("leaky", [](Array y, Array x) {
    parallel_for(y.size(), [&](Index i) {
      Value v = x[i];
      y[i] = select(v > 0, v, 0.125 * v);
    });
  });
  return k;
}

struct Data {
  bench::Buffer<float> x{std::size_t(kN)}, y{std::size_t(kN)};
  tack::Array tx, ty;
  Data() {
    for (std::int64_t i = 0; i < kN; ++i) x[std::size_t(i)] = static_cast<float>((i * 37) % 101) - 50.0f;
    tx = bench::to_device(x);
    ty = bench::cpu().zeros(tack::DType::F32, {kN});
  }
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

using CppLoop = void (*)(float*, const float*, std::int64_t);

void run_cpp(benchmark::State& state, const char* name, CppLoop loop) {
  Data& d = data();
  double per = bench::timed_loop(state, name, [&] { loop(d.y.data(), d.x.data(), kN); });
  bench::per_second(state, "Gelem/s", double(kN) / 1e9, per);
}

void run_tack(benchmark::State& state, const char* name, const tack::Kernel& k, CppLoop loop) {
  Data& d = data();
  k(d.ty, d.tx);  // compiles; the results must be the C++ loop's, bit for bit
  loop(d.y.data(), d.x.data(), kN);
  bench::check_close(name, d.ty.to_host<float>(), d.y.data(), std::size_t(kN));
  double per = bench::timed_loop(state, name, [&] {
    k(d.ty, d.tx);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Gelem/s", double(kN) / 1e9, per);
}

void BM_guarded_cpp(benchmark::State& state) { run_cpp(state, "guards/load/cpp", guarded_cpp); }
void BM_guarded_tack(benchmark::State& state) { run_tack(state, "guards/load/tack", guarded_kernel(), guarded_cpp); }
void BM_leaky_cpp(benchmark::State& state) { run_cpp(state, "guards/select/cpp", leaky_cpp); }
void BM_leaky_tack(benchmark::State& state) { run_tack(state, "guards/select/tack", leaky_kernel(), leaky_cpp); }

}  // namespace

BENCHMARK(BM_guarded_cpp)->Name("guards/load/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_guarded_tack)->Name("guards/load/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_leaky_cpp)->Name("guards/select/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_leaky_tack)->Name("guards/select/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
