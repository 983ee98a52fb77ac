// Fixed-lane loops the compiler vectorizes at every width: min and max compare
// integer keys that order floats totally (-0.0 below +0.0, NaN mapped past
// either end), so lanes and blocks can be combined in any order.
#include "runtime/host_reduce_loops.hpp"

#include "support/glibc_cpuid.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

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

// The float's bits as a signed integer whose order is the float's, with -0.0
// below +0.0: negative floats have their magnitude bits flipped. Its own inverse.
template <class I>
TACK_INLINE_INTO_COPIES I order_key(I bits) {
  return bits ^ ((bits >> (8 * sizeof(I) - 1)) & std::numeric_limits<I>::max());
}

template <bool Min, class F>
TACK_INLINE_INTO_COPIES Extreme extreme_lanes(const F* x, std::int64_t n) {
  using I = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
  constexpr int kLanes = 64 / sizeof(F);
  // A NaN takes the key no number reaches: past +inf for min, below -inf for max.
  constexpr I kNone = Min ? std::numeric_limits<I>::max() : std::numeric_limits<I>::min();
  // On the bits, so that the select vectorizes: a NaN's magnitude bits exceed infinity's.
  constexpr I kMagnitude = std::numeric_limits<I>::max();
  constexpr I kInfinity = std::bit_cast<I>(std::numeric_limits<F>::infinity());
  // (A mask, not a ?:, which the compiler turns back into a branch that skips the NaN.)
  auto key = [](F v) {
    const I bits = std::bit_cast<I>(v);
    const I nan = -static_cast<I>((bits & kMagnitude) > kInfinity);
    return (order_key(bits) & ~nan) | (kNone & nan);
  };
  I best[kLanes];
  for (I& b : best) b = kNone;
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const I k = key(x[i + l]);
      best[l] = (Min ? k < best[l] : k > best[l]) ? k : best[l];
    }
  for (int l = 0; i < n; ++i, ++l) {
    const I k = key(x[i]);
    best[l] = (Min ? k < best[l] : k > best[l]) ? k : best[l];
  }
  I all = kNone;
  for (I b : best) all = (Min ? b < all : b > all) ? b : all;
  if (all == kNone) return {0.0, false};
  return {static_cast<double>(std::bit_cast<F>(order_key(all))), true};
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

bool below(double a, double b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); }

}  // namespace tack::runtime
