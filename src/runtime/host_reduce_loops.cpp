// Fixed-lane loops the compiler vectorizes at every width, each lane's order
// of operations the same at every width.
#include "runtime/host_reduce_loops.hpp"

#include "support/glibc_cpuid.hpp"

#include <cstdint>
#include <limits>

// The loops are templates inlined into each width's copy, which compiles them for its width.
#define TACK_INLINE_INTO_COPIES inline __attribute__((always_inline))

namespace tack::runtime {
namespace {

constexpr int kSumLanes = 16;

template <class F>
TACK_INLINE_INTO_COPIES double sum_lanes(const F* x, std::int64_t n) {
  double acc[kSumLanes] = {};
  std::int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int l = 0; l < kSumLanes; ++l) acc[l] += static_cast<double>(x[i + l]);
  for (int l = 0; i < n; ++i, ++l) acc[l] += static_cast<double>(x[i]);
  double total = 0;
  for (double a : acc) total += a;
  return total;
}

// `x < m ? x : m` is the one instruction minps/maxps compute: a NaN x leaves m,
// and of two equal values (-0.0 and +0.0) the earlier stays. Lanes start at
// +inf (-inf for max); a result still there means every element was NaN or
// that infinity, which a second look (rare) tells apart.
template <bool Min, class F>
TACK_INLINE_INTO_COPIES Extreme extreme_lanes(const F* x, std::int64_t n) {
  constexpr int kLanes = sizeof(F) == 4 ? 32 : 8;  // f32: two 512-bit registers, two chains in flight
  constexpr F kStart = Min ? std::numeric_limits<F>::infinity() : -std::numeric_limits<F>::infinity();
  auto better = [](F a, F b) { return Min ? a < b : a > b; };
  F best[kLanes];
  for (F& b : best) b = kStart;
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) best[l] = better(x[i + l], best[l]) ? x[i + l] : best[l];
  for (int l = 0; i < n; ++i, ++l) best[l] = better(x[i], best[l]) ? x[i] : best[l];
  F all = kStart;
  for (F b : best) all = better(b, all) ? b : all;
  if (all == kStart) {
    for (std::int64_t j = 0; j < n; ++j)
      if (x[j] == kStart) return {static_cast<double>(kStart), true};
    return {0.0, false};
  }
  return {static_cast<double>(all), true};
}

// Each entry point compiled for AVX-512, for AVX2 and for the baseline; the
// first call picks the widest the host runs, from glibc's copy of cpuid.
// (Not GCC's target_clones: its resolvers initialize libgcc's CPU model, whose
// cpuid instructions would run at every libtack load.)
#if TACK_GLIBC_CPUID
#define TACK_AT_EVERY_WIDTH(Ret, name, Params, body)                                               \
  __attribute__((target("avx512f"))) Ret name##_avx512 Params body __attribute__((target("avx2"))) \
  Ret name##_avx2 Params body Ret name##_baseline Params body
template <class Fn>
Fn widest(Fn avx512, Fn avx2, Fn baseline) {
  return support::host_has_avx512f() ? avx512 : support::host_has_avx2() ? avx2 : baseline;
}
#define TACK_WIDEST(name) widest(name##_avx512, name##_avx2, name##_baseline)
#else
#define TACK_AT_EVERY_WIDTH(Ret, name, Params, body) Ret name##_baseline Params body
#define TACK_WIDEST(name) name##_baseline
#endif

TACK_AT_EVERY_WIDTH(double, sum_f32, (const float* x, std::int64_t n), { return sum_lanes(x, n); })
TACK_AT_EVERY_WIDTH(double, sum_f64, (const double* x, std::int64_t n), { return sum_lanes(x, n); })
TACK_AT_EVERY_WIDTH(Extreme, min_f32, (const float* x, std::int64_t n), { return extreme_lanes<true>(x, n); })
TACK_AT_EVERY_WIDTH(Extreme, min_f64, (const double* x, std::int64_t n), { return extreme_lanes<true>(x, n); })
TACK_AT_EVERY_WIDTH(Extreme, max_f32, (const float* x, std::int64_t n), { return extreme_lanes<false>(x, n); })
TACK_AT_EVERY_WIDTH(Extreme, max_f64, (const double* x, std::int64_t n), { return extreme_lanes<false>(x, n); })

}  // namespace

double sum_as_f64(const float* x, std::int64_t n) {
  static const auto fn = TACK_WIDEST(sum_f32);
  return fn(x, n);
}
double sum_as_f64(const double* x, std::int64_t n) {
  static const auto fn = TACK_WIDEST(sum_f64);
  return fn(x, n);
}
Extreme min_of(const float* x, std::int64_t n) {
  static const auto fn = TACK_WIDEST(min_f32);
  return fn(x, n);
}
Extreme min_of(const double* x, std::int64_t n) {
  static const auto fn = TACK_WIDEST(min_f64);
  return fn(x, n);
}
Extreme max_of(const float* x, std::int64_t n) {
  static const auto fn = TACK_WIDEST(max_f32);
  return fn(x, n);
}
Extreme max_of(const double* x, std::int64_t n) {
  static const auto fn = TACK_WIDEST(max_f64);
  return fn(x, n);
}

}  // namespace tack::runtime
