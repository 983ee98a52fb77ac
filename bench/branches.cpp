// A varying if_ whose lanes mostly agree: x follows a slow sine, so a gang of
// 16 neighbours sits on one side of zero except where the sign changes, and
// each side evaluates its own polynomial. The SIMD path runs each side under
// its mask and skips a side no lane takes; the plain OpenMP loop with the same
// f32 operations is if-converted by GCC (both sides, blended). It is the
// kernel that decided against ISPC's `cif` (a side every lane takes run as an
// unmasked copy): no measurable gain (bench/RESULTS.md). Each product is its
// own statement on both sides, so neither may fuse it.
#include "common.hpp"

#include <cmath>

namespace {

using namespace tack::lang;

const std::int64_t kN = bench::quick() ? (1 << 16) : (1 << 22);

// The two sides' coefficients: p = p * v + c from 0.25 where v > 0; else p = p * v - c from -1.5, then p * p.
constexpr float kAbove[] = {0.5f, -0.75f, 1.25f, 0.125f, -0.5f, 2.0f};
constexpr float kBelow[] = {0.75f, 0.5f, -1.25f, 0.375f};

// Each side written once, for the C++ loop (float) and the Tack kernel (Var and Value): the same operations
// in the same order, so both give the same bits.
template <class P, class V>
inline void above_side(P& p, const V& v) {
  p = 0.25f;
  for (float c : kAbove) {
    p = p * v;
    p = p + c;
  }
}
template <class P, class V>
inline void below_side(P& p, const V& v) {
  p = -1.5f;
  for (float c : kBelow) {
    p = p * v;
    p = p - c;
  }
  p = p * p;
}

__attribute__((noinline)) void branches_cpp(float* __restrict y, const float* __restrict x, std::int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    float p;
    if (v > 0.0f)
      above_side(p, v);
    else
      below_side(p, v);
    y[i] = p;
  }
}

const tack::Kernel& branches_kernel() {
  static const tack::Kernel k = tack::kernel("branches", [](Array y, Array x) {
    parallel_for(y.size(), [&](Index i) {
      Value v = x[i];
      Var p = 0.0f;
      if_(
          v > 0.0f, [&] { above_side(p, v); }, [&] { below_side(p, v); });
      y[i] = p;
    });
  });
  return k;
}

bench::Buffer<float> slow_sine() {
  bench::Buffer<float> x{std::size_t(kN)};
  for (std::int64_t i = 0; i < kN; ++i) x[std::size_t(i)] = std::sin(static_cast<float>(i) * 0.0015f);
  return x;
}

struct Data {
  bench::Buffer<float> x = slow_sine(), y{std::size_t(kN)};
  tack::Array tx = bench::to_device(x);
  tack::Array ty = bench::cpu().zeros(tack::DType::F32, {kN});
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

void BM_branches_cpp(benchmark::State& state) {
  Data& d = data();
  double per = bench::timed_loop(state, "branches/cpp", [&] { branches_cpp(d.y.data(), d.x.data(), kN); });
  bench::per_second(state, "Gelem/s", double(kN) / 1e9, per);
}

void BM_branches_tack(benchmark::State& state) {
  Data& d = data();
  const tack::Kernel& k = branches_kernel();
  static bool checked = [&] {
    k(d.ty, d.tx);  // compiles
    branches_cpp(d.y.data(), d.x.data(), kN);
    bench::check_close("branches", d.ty.to_host<float>(), d.y.data(), std::size_t(kN));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "branches/tack", [&] {
    k(d.ty, d.tx);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Gelem/s", double(kN) / 1e9, per);
}

}  // namespace

BENCHMARK(BM_branches_cpp)->Name("branches/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_branches_tack)->Name("branches/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
