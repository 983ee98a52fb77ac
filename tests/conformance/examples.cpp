// Whole programs: DESIGN §1's saxpy and jacobi, a Mandelbrot set (while_ with
// a lambda condition and break_), and a histogram (atomic_add into i32 bins).
// Each is compared element for element with the same computation in plain C++,
// using the same operations in the same order, so the results are exact.
// (The block sums are in workgroups.cpp.)
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Examples);

tack::Kernel saxpy_kernel() {
  return tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
}

// saxpy twice (3 then 4) on f32, f64 and i32 arrays. The values make every
// product exact, so fusing a * x + y or not gives the same result.
TEST_P(Examples, Saxpy) {
  auto saxpy = saxpy_kernel();
  auto run_type = [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const int n = 1000;
    std::vector<T> hx(n), hy(n);
    for (int i = 0; i < n; ++i) {
      hx[i] = static_cast<T>(std::is_floating_point_v<T> ? 0.25 * (i % 1024) : i % 1024);
      hy[i] = static_cast<T>(i % 77 - 38);
    }
    std::vector<T> want = hy;
    for (T a : {T(3), T(4)})
      for (int i = 0; i < n; ++i) want[i] = a * hx[i] + want[i];
    expect_exact(
        "saxpy(y, x, 3); saxpy(y, x, 4)",
        [&](const tack::Device& d) {
          tack::Array x = d.from_host(hx), y = d.from_host(hy);
          saxpy(y, x, T(3));
          saxpy(y, x, T(4));
          return y.to_host<T>();
        },
        want);
  };
  run_type.operator()<float>();
  run_type.operator()<double>();
  run_type.operator()<std::int32_t>();
}

// Jacobi: 0.25f * (a sum of four neighbours), left to right; no product to fuse.
TEST_P(Examples, Jacobi) {
  auto jacobi = tack::kernel("jacobi", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
    });
  });
  auto run_type = [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    const std::int64_t H = 17, W = 23;
    std::vector<T> in(H * W);
    for (std::int64_t i = 0; i < H * W; ++i) in[i] = static_cast<T>(0.1 * static_cast<double>((i * 37) % 101) - 3.3);
    std::vector<T> want(H * W, T(0));
    for (std::int64_t i = 0; i + 2 < H; ++i)
      for (std::int64_t j = 0; j + 2 < W; ++j) {
        T s = in[i * W + j + 1] + in[(i + 2) * W + j + 1];
        s = s + in[(i + 1) * W + j];
        s = s + in[(i + 1) * W + j + 2];
        want[(i + 1) * W + j + 1] = T(0.25f) * s;  // the f32 literal takes T's type
      }
    // Two sweeps back and forth, as a solver would run.
    std::vector<T> want2(H * W, T(0));
    for (std::int64_t i = 0; i + 2 < H; ++i)
      for (std::int64_t j = 0; j + 2 < W; ++j) {
        T s = want[i * W + j + 1] + want[(i + 2) * W + j + 1];
        s = s + want[(i + 1) * W + j];
        s = s + want[(i + 1) * W + j + 2];
        want2[(i + 1) * W + j + 1] = T(0.25f) * s;
      }
    want.insert(want.end(), want2.begin(), want2.end());
    expect_exact(
        "jacobi, one and two sweeps",
        [&](const tack::Device& d) {
          tack::Array a = d.from_host(in, {H, W});
          tack::Array b = d.zeros(tack::dtype_of<T>, {H, W});
          tack::Array c = d.zeros(tack::dtype_of<T>, {H, W});
          jacobi(b, a);
          jacobi(c, b);
          std::vector<T> r = b.to_host<T>();
          for (T v : c.to_host<T>()) r.push_back(v);
          return r;
        },
        want);
  };
  run_type.operator()<float>();
  run_type.operator()<double>();
}

// Mandelbrot: iteration counts per pixel. Every product below either has a
// second use (x2, y2, t) or is exact (px * dx with dx a power of two), so the
// result does not depend on contraction; 2 zx zy is computed as t + t.
TEST_P(Examples, Mandelbrot) {
  auto mandel = tack::kernel("mandelbrot", [](Array out, Scalar x0, Scalar y0, Scalar step, Scalar max_iter) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index py, Index px) {
      Value cx = x0 + cast<float>(px) * step;
      Value cy = y0 + cast<float>(py) * step;
      Var zx = 0.0f, zy = 0.0f;
      Var it = 0;
      while_([&] { return it < max_iter; },
             [&] {
               Value x2 = zx * zx, y2 = zy * zy;
               if_(x2 + y2 > 4.0f, [&] { break_(); });
               Value t = zx * zy;
               Value nx = x2 - y2 + cx;
               zy = t + t + cy;
               zx = nx;
               it += 1;
             });
      out(py, px) = it;
    });
  });
  const std::int64_t H = 24, W = 48;
  const float x0 = -2.0f, y0 = -0.75f, step = 0.0625f;
  const int max_iter = 60;
  std::vector<std::int32_t> want;
  for (std::int64_t py = 0; py < H; ++py)
    for (std::int64_t px = 0; px < W; ++px) {
      float cx = x0 + static_cast<float>(px) * step, cy = y0 + static_cast<float>(py) * step;
      float zx = 0.0f, zy = 0.0f;
      int it = 0;
      while (it < max_iter) {
        float x2 = zx * zx, y2 = zy * zy;
        if (x2 + y2 > 4.0f) break;
        float t = zx * zy;
        float nx = x2 - y2 + cx;
        zy = t + t + cy;
        zx = nx;
        it += 1;
      }
      want.push_back(it);
    }
  int inside = 0;
  for (int v : want) inside += v == max_iter;
  EXPECT_GT(inside, 50) << "the picture should contain part of the set";
  expect_exact(
      "Mandelbrot iteration counts",
      [&](const tack::Device& d) {
        tack::Array out = d.zeros(tack::DType::I32, {H, W});
        mandel(out, x0, y0, step, max_iter);
        return out.to_host<std::int32_t>();
      },
      want, [](std::size_t i) { return "pixel (" + std::to_string(i / 48) + ", " + std::to_string(i % 48) + ")"; });
}

// A histogram: atomic_add of 1 into i32 bins.
TEST_P(Examples, Histogram) {
  auto hist = tack::kernel("histogram", [](Array bins, Array x) {
    parallel_for(x.size(), [&](Index i) {
      Value b = cast<std::int64_t>(x[i] * 16.0f);  // x in [0, 1): bins 0..15, exact (a power of two)
      atomic_add(bins, b, 1);
    });
  });
  if (!has_atomic<std::int32_t>()) return;
  const std::int64_t n = 3000;
  std::vector<float> x;
  std::uint32_t s = 7;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    float u = static_cast<float>(s >> 8) / 16777216.0f;  // [0, 1)
    x.push_back(u * u);                                  // skewed towards 0
  }
  std::vector<std::int32_t> want(16, 0);
  for (float v : x) want[static_cast<std::int64_t>(v * 16.0f)] += 1;
  expect_exact(
      "histogram of 3000 values in 16 bins",
      [&](const tack::Device& d) {
        tack::Array bins = zeros<std::int32_t>(d, 16);
        hist(bins, d.from_host(x));
        return bins.to_host<std::int32_t>();
      },
      want);
}

}  // namespace
