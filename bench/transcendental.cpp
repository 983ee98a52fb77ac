// Transcendental functions in a memory-light kernel, 2^22 f32 elements: on the
// CPU's SIMD path each call is one libmvec call per gang (docs/cpu-codegen.md),
// against the plain OpenMP loop, which GCC compiles to one libm call per
// element (it calls libmvec only under -ffast-math, which DESIGN §4 forbids).
// libmvec is within 4 ulp and libm within 1-2, so the results are compared
// with a relative tolerance, not bit for bit.
#include "common.hpp"

#include <cmath>

namespace {

using namespace tack::lang;

const std::int64_t kCount = bench::quick() ? (1 << 16) : (1 << 22);

__attribute__((noinline)) void waves_cpp(float* __restrict out, const float* __restrict x, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float damped = std::sin(v) * std::exp(v * -0.25f);
    const float grown = std::log(v + 1.0f);
    out[i] = damped + grown * std::cos(v);
  }
}

const tack::Kernel& waves_kernel() {
  static const tack::Kernel k = tack::kernel("waves", [](Array out, Array x) {
    parallel_for(out.size(), [&](Index i) {
      Value v = x[i];
      Value damped = sin(v) * exp(v * -0.25f);
      Value grown = log(v + 1.0f);
      out[i] = damped + grown * cos(v);
    });
  });
  return k;
}

struct Waves {
  bench::Buffer<float> x{std::size_t(kCount), 0.0f};
  bench::Buffer<float> out{std::size_t(kCount), 0.0f};
  tack::Array tx, tout;
  Waves() {
    for (std::int64_t i = 0; i < kCount; ++i) x.data()[i] = 0.0001f * static_cast<float>(i % 100000);
    tx = bench::to_device(x);
    tout = bench::cpu().zeros(tack::DType::F32, {kCount});
  }
};
Waves& waves() {
  static auto* d = new Waves;
  return *d;
}

void BM_waves_cpp(benchmark::State& state) {
  Waves& d = waves();
  double per = bench::timed_loop(state, "waves/cpp", [&] { waves_cpp(d.out.data(), d.x.data(), kCount); });
  bench::per_second(state, "Melem/s", double(kCount) / 1e6, per);
}

void BM_waves_tack(benchmark::State& state) {
  Waves& d = waves();
  const tack::Kernel& k = waves_kernel();
  static bool checked = [&] {
    k(d.tout, d.tx);  // compiles
    waves_cpp(d.out.data(), d.x.data(), kCount);
    // A few ulp of each term: relative to the result, plus a little for the terms' cancellation near 0.
    bench::check_close("waves", d.tout.to_host<float>(), d.out.data(), std::size_t(kCount), 1e-5, 1e-6);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "waves/tack", [&] {
    k(d.tout, d.tx);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Melem/s", double(kCount) / 1e6, per);
}

}  // namespace

BENCHMARK(BM_waves_cpp)->Name("waves/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_waves_tack)->Name("waves/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
