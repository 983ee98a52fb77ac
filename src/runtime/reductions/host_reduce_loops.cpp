// Fixed-lane loops written in the host's vectors, each lane's order of
// operations the same at every width. The lanes are held in as many native
// vectors as they fill (16 f64 sum lanes: two AVX-512 registers, four AVX2, eight
// SSE2), so no compiler heuristic decides whether a loop is vectorized: GCC 12
// left the scalar-lane form of the f64 min/max scalar at -O3, and its AVX2 and
// baseline sums kept their accumulators in memory at -O2.
#include "runtime/reductions/host_reduce_loops.hpp"

#include "support/glibc_cpuid.hpp"

#if TACK_GLIBC_CPUID
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <limits>

// The loops are templates inlined into each width's copy, which compiles them for its width.
#define TACK_INLINE_INTO_COPIES inline __attribute__((always_inline))

namespace tack::runtime {
namespace {

// kBytes of T as one GCC/Clang vector (a register of the copy's width).
template <class T, int kBytes>
struct Vec {
  typedef T type __attribute__((vector_size(kBytes)));
  static constexpr int kCount = kBytes / static_cast<int>(sizeof(T));
};

constexpr int kSumLanes = 16;

// The sum's end, after a loop that left lane l's sum in lanes[l] and stopped at element i: the elements from i
// into the lanes from lane 0, then the lanes added in order.
template <class F>
TACK_INLINE_INTO_COPIES double finish_sum(double* lanes, const F* x, std::int64_t i, std::int64_t n) {
  for (int l = 0; i < n; ++i, ++l) lanes[l] += static_cast<double>(x[i]);
  double total = 0;
  for (int l = 0; l < kSumLanes; ++l) total += lanes[l];
  return total;
}

// Lane l adds elements l, l + 16, l + 32, ...; the lanes are added in order at the end.
template <int kBytes, class F>
TACK_INLINE_INTO_COPIES double sum_lanes(const F* x, std::int64_t n) {
  using D = Vec<double, kBytes>;
  constexpr int kVecs = kSumLanes / D::kCount;
  typename D::type acc[kVecs] = {};
  std::int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
#pragma GCC unroll 16
    for (int v = 0; v < kVecs; ++v) {
      // Loaded by memcpy (an unaligned load), in place: a helper returning a vector would be
      // compiled for the baseline, whose calling convention passes wide vectors in memory.
      if constexpr (sizeof(F) == 4) {
        typename Vec<float, kBytes / 2>::type e;
        std::memcpy(&e, x + i + v * D::kCount, sizeof e);
        acc[v] += __builtin_convertvector(e, typename D::type);
      } else {
        typename D::type e;
        std::memcpy(&e, x + i + v * D::kCount, sizeof e);
        acc[v] += e;
      }
    }
  }
  double lanes[kSumLanes];
  std::memcpy(lanes, acc, sizeof lanes);
  return finish_sum(lanes, x, i, n);
}

#if TACK_GLIBC_CPUID
// The f32 sums of the x86 copies, in intrinsics: GCC widens a float vector to double in 128-bit halves (two
// converts, a load and an insert per 256 bits), and those converts bound the loop, where one convert per
// register is all it needs (2^17 f32 in L2, one thread: 13.4 us against 8.9 us; bench sum_cached). The lanes
// are sum_lanes' own. (GCC 12 warns that _mm512_cvtps_pd's own undefined start value may be used: it is not.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) double sum_f32_avx512(const float* x, std::int64_t n) {
  static_assert(kSumLanes == 16);
  __m512d low = _mm512_setzero_pd(), high = _mm512_setzero_pd();
  std::int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
    low = _mm512_add_pd(low, _mm512_cvtps_pd(_mm256_loadu_ps(x + i)));
    high = _mm512_add_pd(high, _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8)));
  }
  double lanes[kSumLanes];
  _mm512_storeu_pd(lanes, low);
  _mm512_storeu_pd(lanes + 8, high);
  return finish_sum(lanes, x, i, n);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

__attribute__((target("avx2"))) double sum_f32_avx2(const float* x, std::int64_t n) {
  __m256d acc[kSumLanes / 4];
  for (__m256d& a : acc) a = _mm256_setzero_pd();
  std::int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
#pragma GCC unroll 4
    for (int v = 0; v < kSumLanes / 4; ++v)
      acc[v] = _mm256_add_pd(acc[v], _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * v)));
  }
  double lanes[kSumLanes];
  for (int v = 0; v < kSumLanes / 4; ++v) _mm256_storeu_pd(lanes + 4 * v, acc[v]);
  return finish_sum(lanes, x, i, n);
}
#endif

// `x < m ? x : m` is the one instruction minps/maxps compute: a NaN x leaves m,
// and of two equal values (-0.0 and +0.0) the earlier stays. Lanes start at
// +inf (-inf for max); a result still there means every element was NaN or
// that infinity, which a second look (rare) tells apart.
template <bool Min, int kBytes, class F>
TACK_INLINE_INTO_COPIES Extreme extreme_lanes(const F* x, std::int64_t n) {
  constexpr int kLanes = sizeof(F) == 4 ? 32 : 8;  // f32: two 512-bit registers, two chains in flight
  constexpr F kStart = Min ? std::numeric_limits<F>::infinity() : -std::numeric_limits<F>::infinity();
  using V = Vec<F, kBytes>;
  constexpr int kVecs = kLanes / V::kCount;
  typename V::type best[kVecs];
  for (auto& b : best) b = typename V::type{} + kStart;
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma GCC unroll 16
    for (int v = 0; v < kVecs; ++v) {
      typename V::type e;
      std::memcpy(&e, x + i + v * V::kCount, sizeof e);
      if constexpr (Min)
        best[v] = e < best[v] ? e : best[v];
      else
        best[v] = e > best[v] ? e : best[v];
    }
  }
  F lanes[kLanes];
  std::memcpy(lanes, best, sizeof lanes);
  auto better = [](F a, F b) { return Min ? a < b : a > b; };
  for (int l = 0; i < n; ++i, ++l) lanes[l] = better(x[i], lanes[l]) ? x[i] : lanes[l];
  F all = kStart;
  for (F b : lanes) all = better(b, all) ? b : all;
  if (all == kStart) {
    for (std::int64_t j = 0; j < n; ++j)
      if (x[j] == kStart) return {static_cast<double>(kStart), true};
    return {0.0, false};
  }
  return {static_cast<double>(all), true};
}

// The six loops at one width, as the table reduce_loops() hands out (the x86 copies' f32 sums are above).
#define TACK_LOOPS_AT(Attr, kBytes, suffix)                                                                     \
  Attr double sum_f64_##suffix(const double* x, std::int64_t n) { return sum_lanes<kBytes>(x, n); }             \
  Attr Extreme min_f32_##suffix(const float* x, std::int64_t n) { return extreme_lanes<true, kBytes>(x, n); }   \
  Attr Extreme min_f64_##suffix(const double* x, std::int64_t n) { return extreme_lanes<true, kBytes>(x, n); }  \
  Attr Extreme max_f32_##suffix(const float* x, std::int64_t n) { return extreme_lanes<false, kBytes>(x, n); }  \
  Attr Extreme max_f64_##suffix(const double* x, std::int64_t n) { return extreme_lanes<false, kBytes>(x, n); } \
  constexpr ReduceLoops k##suffix{sum_f32_##suffix, sum_f64_##suffix, min_f32_##suffix,                         \
                                  min_f64_##suffix, max_f32_##suffix, max_f64_##suffix};

// 16-byte vectors are the baseline of x86-64 (SSE2) and of AArch64 (NEON); elsewhere the compiler splits them.
double sum_f32_baseline(const float* x, std::int64_t n) { return sum_lanes<16>(x, n); }
TACK_LOOPS_AT(, 16, baseline)
#if TACK_GLIBC_CPUID
// Each compiled for AVX-512 and for AVX2 too; the first call picks the widest the host runs, from glibc's copy
// of cpuid. (Not GCC's target_clones: its resolvers initialize libgcc's CPU model, whose cpuid instructions
// would run at every libtack load.)
TACK_LOOPS_AT(__attribute__((target("avx512f"))), 64, avx512)
TACK_LOOPS_AT(__attribute__((target("avx2"))), 32, avx2)
#endif

const ReduceLoops& widest() {
#if TACK_GLIBC_CPUID
  static const ReduceLoops& loops = support::host_has_avx512f() ? kavx512
                                    : support::host_has_avx2()  ? kavx2
                                                                : kbaseline;
  return loops;
#else
  return kbaseline;
#endif
}

}  // namespace

const ReduceLoops* reduce_loops(int vector_bytes) {
  if (vector_bytes == 16) return &kbaseline;
#if TACK_GLIBC_CPUID
  if (vector_bytes == 32 && support::host_has_avx2()) return &kavx2;
  if (vector_bytes == 64 && support::host_has_avx512f()) return &kavx512;
#endif
  return nullptr;
}

double sum_as_f64(const float* x, std::int64_t n) { return widest().sum_f32(x, n); }
double sum_as_f64(const double* x, std::int64_t n) { return widest().sum_f64(x, n); }
Extreme min_of(const float* x, std::int64_t n) { return widest().min_f32(x, n); }
Extreme min_of(const double* x, std::int64_t n) { return widest().min_f64(x, n); }
Extreme max_of(const float* x, std::int64_t n) { return widest().max_f32(x, n); }
Extreme max_of(const double* x, std::int64_t n) { return widest().max_f64(x, n); }

}  // namespace tack::runtime
