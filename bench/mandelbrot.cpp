// Mandelbrot, 2048^2 pixels, at most 256 iterations, i32 iteration counts:
// Tack's while_ + break_ against the plain per-pixel OpenMP loop with the same
// f32 operations. Every product that is added to something is its own
// statement (a Var on the Tack side), so neither side may fuse it (DESIGN §4)
// and the two results must be equal pixel for pixel.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kH = bench::quick() ? 128 : 2048, kW = kH;
constexpr int kMaxIt = 256;
// The window [-2.0, 0.5] x [-1.25, 1.25], symmetric about the real axis.
const float kX0 = -2.0f, kY0 = -1.25f, kDx = 2.5f / float(kW), kDy = 2.5f / float(kH);

__attribute__((noinline)) void mandelbrot_cpp(std::int32_t* __restrict out, std::int64_t h, std::int64_t w, float x0,
                                              float y0, float dx, float dy, int maxit) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h; ++i) {
    for (std::int64_t j = 0; j < w; ++j) {
      float tx = static_cast<float>(j) * dx;
      float cx = tx + x0;
      float ty = static_cast<float>(i) * dy;
      float cy = ty + y0;
      float x = 0.0f, y = 0.0f;
      int it = 0;
      while (it < maxit) {
        float x2 = x * x;
        float y2 = y * y;
        if (x2 + y2 > 4.0f) break;
        float xy = x * y;
        y = xy + xy + cy;
        x = x2 - y2 + cx;
        it += 1;
      }
      out[i * w + j] = it;
    }
  }
}

const tack::Kernel& mandelbrot_kernel() {
  static const tack::Kernel k =
      tack::kernel("mandelbrot", [](Array out, Scalar x0, Scalar y0, Scalar dx, Scalar dy, Scalar maxit) {
        parallel_for({out.shape(0), out.shape(1)}, [&](Index i, Index j) {
          Var tx = cast<float>(j) * dx;
          Var cx = tx + x0;
          Var ty = cast<float>(i) * dy;
          Var cy = ty + y0;
          Var x = 0.0f, y = 0.0f;
          Var x2 = 0.0f, y2 = 0.0f, xy = 0.0f;
          Var it = 0;
          while_([&] { return it < maxit; },
                 [&] {
                   x2 = x * x;
                   y2 = y * y;
                   if_(x2 + y2 > 4.0f, [&] { break_(); });
                   xy = x * y;
                   y = xy + xy + cy;
                   x = x2 - y2 + cx;
                   it += 1;
                 });
          out(i, j) = it;
        });
      });
  return k;
}

struct Mandel {
  bench::Buffer<std::int32_t> out{std::size_t(kH * kW), -1};
  tack::Array tout = bench::cpu().zeros(tack::DType::I32, {kH, kW});
};
Mandel& mandel_data() {
  static auto* d = new Mandel;
  return *d;
}

void BM_mandelbrot_cpp(benchmark::State& state) {
  Mandel& d = mandel_data();
  double per = bench::timed_loop(state, "mandelbrot/cpp",
                                 [&] { mandelbrot_cpp(d.out.data(), kH, kW, kX0, kY0, kDx, kDy, kMaxIt); });
  bench::per_second(state, "Mpix/s", double(kH * kW) / 1e6, per);
}

void BM_mandelbrot_tack(benchmark::State& state) {
  Mandel& d = mandel_data();
  const tack::Kernel& k = mandelbrot_kernel();
  static bool checked = [&] {
    k(d.tout, kX0, kY0, kDx, kDy, kMaxIt);  // compiles
    mandelbrot_cpp(d.out.data(), kH, kW, kX0, kY0, kDx, kDy, kMaxIt);
    bench::check_close("mandelbrot", d.tout.to_host<std::int32_t>(), d.out.data(), std::size_t(kH * kW));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "mandelbrot/tack", [&] {
    k(d.tout, kX0, kY0, kDx, kDy, kMaxIt);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Mpix/s", double(kH * kW) / 1e6, per);
}

}  // namespace

BENCHMARK(BM_mandelbrot_cpp)->Name("mandelbrot/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mandelbrot_tack)->Name("mandelbrot/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
