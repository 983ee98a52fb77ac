// The inner loops of Array::sum/min/max on the host over one block of floats.
// libtack is built for the baseline of its architecture, so these are compiled
// once per vector width (AVX-512, AVX2, baseline on x86-64 with glibc) and the
// first call picks the host's widest: a stream of f32 into f64 accumulators at the
// baseline's 128 bits keeps too few cache misses in flight to reach memory
// bandwidth. Each result is the same on every host: the sum adds in 16 fixed
// lanes whatever the vector width, and min/max order values totally.
#pragma once

#include <cstdint>

namespace tack::runtime {

// The sum in f64: element i goes to lane i % 16, the lanes are added in order.
double sum_as_f64(const float* x, std::int64_t n);
double sum_as_f64(const double* x, std::int64_t n);

// The least (most) non-NaN element, with -0.0 below +0.0, as a double; false
// when there is none (n == 0 or every element is NaN).
struct Extreme {
  double value;
  bool any;
};
Extreme min_of(const float* x, std::int64_t n);
Extreme min_of(const double* x, std::int64_t n);
Extreme max_of(const float* x, std::int64_t n);
Extreme max_of(const double* x, std::int64_t n);

// Whether a is below b in that order (neither NaN).
bool below(double a, double b);

}  // namespace tack::runtime
