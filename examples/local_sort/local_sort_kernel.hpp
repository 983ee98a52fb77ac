// An insertion sort of 16 f32 values per work-item in a local_array: each row
// of an (n, 16) array sorted ascending. In a header so that the conformance
// test (tests/conformance/local_arrays.cpp), the benchmark (bench/local_sort.cpp),
// the CPU plan's unit test and the Python twin (python/tests/test_twins.py)
// build this very kernel; examples/python/local_sort_solve.py is the Python one.
#pragma once

#include <tack/tack.hpp>

namespace local_sort {

using namespace tack::lang;

// Sorts the first `count` elements of `a` in place, ascending. The comparison
// reads a[max(j, 0)]: && evaluates both sides, so no work-item reads a[-1].
inline void insertion_sort(const LocalArray& a, const Value& count) {
  for_range(1, count, [&](Index k) {
    Value key = a[k];
    Var j = k - 1;
    while_([&] { return j >= 0 && a[max(j, 0)] > key; },
           [&] {
             a[j + 1] = a[j];
             j -= 1;
           });
    a[j + 1] = key;
  });
}

// out, in: (n, 16).
inline tack::Kernel sort16_kernel() {
  return tack::kernel("local_sort16", [](Array out, Array in) {
    parallel_for(out.shape(0), [&](Index i) {
      LocalArray a = local_array<float>(16);
      for_range(0, 16, [&](Index k) { a[k] = in(i, k); });
      insertion_sort(a, 16);
      for_range(0, 16, [&](Index k) { out(i, k) = a[k]; });
    });
  });
}

}  // namespace local_sort
