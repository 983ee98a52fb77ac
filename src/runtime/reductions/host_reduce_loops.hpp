// The inner loops of Array::sum/min/max on the host over one block of floats.
// libtack is built for the baseline of its architecture, so these are compiled
// once per vector width (AVX-512, AVX2, baseline on x86-64 with glibc) and the
// first call picks the host's widest: a stream of f32 into f64 accumulators at the
// baseline's 128 bits keeps too few cache misses in flight to reach memory
// bandwidth. Each result is the same on every host: every loop works in fixed
// lanes whatever the vector width.
#pragma once

#include <cstdint>

namespace tack::runtime {

// The sum in f64: element i goes to lane i % 16, the lanes are added in order.
double sum_as_f64(const float* x, std::int64_t n);
double sum_as_f64(const double* x, std::int64_t n);

// The least (most) non-NaN element as a double; false when there is none (n ==
// 0 or every element is NaN). Of -0.0 and +0.0 the first in lane order
// (element i in lane i % 32 for f32, i % 8 for f64, the lanes in order):
// either may come back, the same one on every host.
struct Extreme {
  double value;
  bool any;
};
Extreme min_of(const float* x, std::int64_t n);
Extreme min_of(const double* x, std::int64_t n);
Extreme max_of(const float* x, std::int64_t n);
Extreme max_of(const double* x, std::int64_t n);

// The six loops compiled for one vector width, for tests to run every copy the
// host can: 16 bytes (the baseline), 32 (AVX2) and 64 (AVX-512). nullptr where
// this host or build has no such copy. The functions above call the widest.
struct ReduceLoops {
  double (*sum_f32)(const float*, std::int64_t);
  double (*sum_f64)(const double*, std::int64_t);
  Extreme (*min_f32)(const float*, std::int64_t);
  Extreme (*min_f64)(const double*, std::int64_t);
  Extreme (*max_f32)(const float*, std::int64_t);
  Extreme (*max_f64)(const double*, std::int64_t);
};
const ReduceLoops* reduce_loops(int vector_bytes);

}  // namespace tack::runtime
