// Mandelbrot, 2048^2 pixels, at most 256 iterations, i32 iteration counts:
// Tack's while_ + break_ against the plain per-pixel OpenMP loop with the same
// f32 operations, and against the same loop written by hand 16 pixels at a
// time with a sticky active mask (AVX-512; what Tack's SIMD gangs should
// match). Every product that is added to something is its own statement (a
// Var on the Tack side), so no side may fuse it (DESIGN §4) and the results
// must be equal pixel for pixel.
#include "common.hpp"

#ifdef __AVX512F__
#include <immintrin.h>
#endif

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

#ifdef __AVX512F__
// 16 pixels of a row at a time; w must be a multiple of 16. A lane's mask bit
// clears when its point escapes and stays clear; the row's gang stops when no
// bit is left.
__attribute__((noinline)) void mandelbrot_simd16(std::int32_t* __restrict out, std::int64_t h, std::int64_t w, float x0,
                                                 float y0, float dx, float dy, int maxit) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h; ++i) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 four = _mm512_set1_ps(4.0f);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512 cy = _mm512_set1_ps(static_cast<float>(i) * dy + y0);
    for (std::int64_t j = 0; j < w; j += 16) {
      __m512 jf = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(j)), lane));
      __m512 cx = _mm512_add_ps(_mm512_mul_ps(jf, _mm512_set1_ps(dx)), _mm512_set1_ps(x0));
      __m512 x = _mm512_setzero_ps(), y = _mm512_setzero_ps();
      __m512i it = _mm512_setzero_si512();
      __mmask16 active = 0xFFFF;
      for (int k = 0; k < maxit; ++k) {
        __m512 x2 = _mm512_mul_ps(x, x);
        __m512 y2 = _mm512_mul_ps(y, y);
        active &= static_cast<__mmask16>(~_mm512_cmp_ps_mask(_mm512_add_ps(x2, y2), four, _CMP_GT_OQ));
        if (!active) break;
        __m512 xy = _mm512_mul_ps(x, y);
        y = _mm512_add_ps(_mm512_add_ps(xy, xy), cy);
        x = _mm512_add_ps(_mm512_sub_ps(x2, y2), cx);
        it = _mm512_mask_add_epi32(it, active, it, one);
      }
      _mm512_storeu_si512(out + i * w + j, it);
    }
  }
}
#endif

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

void BM_mandelbrot_simd16(benchmark::State& state) {
#ifdef __AVX512F__
  Mandel& d = mandel_data();
  static bool checked = [&] {
    bench::Buffer<std::int32_t> ref{std::size_t(kH * kW), -1};
    mandelbrot_cpp(ref.data(), kH, kW, kX0, kY0, kDx, kDy, kMaxIt);
    mandelbrot_simd16(d.out.data(), kH, kW, kX0, kY0, kDx, kDy, kMaxIt);
    bench::check_close("mandelbrot simd16", std::vector<std::int32_t>(d.out.data(), d.out.data() + kH * kW), ref.data(),
                       std::size_t(kH * kW));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "mandelbrot_vs16/cpp",
                                 [&] { mandelbrot_simd16(d.out.data(), kH, kW, kX0, kY0, kDx, kDy, kMaxIt); });
  bench::per_second(state, "Mpix/s", double(kH * kW) / 1e6, per);
#else
  state.SkipWithError("the 16-lane reference is written for AVX-512");
#endif
}

// The Tack kernel, timed under `name` ("<pair>/tack").
void run_mandelbrot_tack(benchmark::State& state, const char* name) {
  Mandel& d = mandel_data();
  const tack::Kernel& k = mandelbrot_kernel();
  static bool checked = [&] {
    k(d.tout, kX0, kY0, kDx, kDy, kMaxIt);  // compiles
    mandelbrot_cpp(d.out.data(), kH, kW, kX0, kY0, kDx, kDy, kMaxIt);
    bench::check_close("mandelbrot", d.tout.to_host<std::int32_t>(), d.out.data(), std::size_t(kH * kW));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, name, [&] {
    k(d.tout, kX0, kY0, kDx, kDy, kMaxIt);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Mpix/s", double(kH * kW) / 1e6, per);
}

void BM_mandelbrot_tack(benchmark::State& state) { run_mandelbrot_tack(state, "mandelbrot/tack"); }
// Again, paired with the 16-lane reference in the same run.
void BM_mandelbrot_tack_vs16(benchmark::State& state) { run_mandelbrot_tack(state, "mandelbrot_vs16/tack"); }

}  // namespace

BENCHMARK(BM_mandelbrot_cpp)->Name("mandelbrot/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mandelbrot_simd16)->Name("mandelbrot_vs16/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mandelbrot_tack_vs16)->Name("mandelbrot_vs16/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mandelbrot_tack)->Name("mandelbrot/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
