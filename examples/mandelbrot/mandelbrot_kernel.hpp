// The Mandelbrot kernel: a bounded for_range with break_ and Vars. In a header
// so that the Python package's twin test builds this very kernel
// (python/tests/twins/twins.cpp).
#pragma once

#include <tack/tack.hpp>

inline tack::Kernel mandelbrot_kernel() {
  using namespace tack::lang;
  // A smooth escape count per pixel (n + 1 - log2(log|z|)), or -1 inside the set.
  return tack::kernel("mandelbrot", [](ArrayOf<f32> out, ScalarOf<i32> max_iter) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index row, Index col) {
      Value h = cast<f32>(out.shape(0));
      Value cx = -0.75f + 3.0f * (cast<f32>(col) - 0.5f * cast<f32>(out.shape(1))) / (1.5f * h);
      Value cy = 1.0f - 2.0f * cast<f32>(row) / h;
      Var x = 0.0f, y = 0.0f;
      Var n = 0;
      for_range(0, max_iter, [&](Index) {
        Value x2 = x * x, y2 = y * y;
        if_(x2 + y2 > 256.0f, [&] { break_(); });  // far past 2: the smooth count is accurate
        y = 2.0f * x * y + cy;
        x = x2 - y2 + cx;
        n += 1;
      });
      Value smooth = cast<f32>(n) + 1.0f - log2(log(sqrt(x * x + y * y)));
      out(row, col) = select(n < max_iter, smooth, -1.0f);
    });
  });
}
