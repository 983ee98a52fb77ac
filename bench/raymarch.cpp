// Sphere tracing a signed distance field, 1024^2 rays, at most 96 steps: a
// second divergent kernel (each ray stops at its own step, hit or miss) for
// the CPU's SIMD gangs, against the plain per-pixel OpenMP loop with the same
// f32 operations. The field is two spheres and a plane; each product that is
// added to something is its own statement on both sides, so neither may fuse
// it (DESIGN §4), and the step counts must be equal ray for ray.
#include "common.hpp"

#include <cmath>

namespace {

using namespace tack::lang;

const std::int64_t kSide = bench::quick() ? 128 : 1024;
constexpr int kMaxSteps = 96;

__attribute__((noinline)) void raymarch_cpp(std::int32_t* __restrict out, std::int64_t h, std::int64_t w, float inv,
                                            int max_steps) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h; ++i) {
    for (std::int64_t j = 0; j < w; ++j) {
      float u = static_cast<float>(j) * inv;
      float v = static_cast<float>(i) * inv;
      float dx = u - 0.5f, dy = v - 0.5f, dz = 1.0f;
      float xx = dx * dx;
      float yy = dy * dy;
      float s2 = xx + yy;
      float len = std::sqrt(s2 + 1.0f);
      dx = dx / len, dy = dy / len, dz = dz / len;
      float t = 0.0f;
      int steps = 0;
      while (steps < max_steps) {
        float px = dx * t;
        float py = dy * t;
        float pz = dz * t;
        pz = pz - 3.0f;
        float ax = px - 0.4f;
        float a2 = ax * ax;
        float b2 = py * py;
        float c2 = pz * pz;
        float d1 = std::sqrt(a2 + b2 + c2) - 0.5f;
        float bx = px + 0.5f;
        float by = py - 0.2f;
        float e2 = bx * bx;
        float f2 = by * by;
        float d2 = std::sqrt(e2 + f2 + c2) - 0.3f;
        float d3 = py + 0.6f;
        float d = std::fmin(std::fmin(d1, d2), d3);
        if (d < 0.001f) break;
        t = t + d;
        if (t > 20.0f) break;
        steps += 1;
      }
      out[i * w + j] = steps;
    }
  }
}

const tack::Kernel& raymarch_kernel() {
  static const tack::Kernel k = tack::kernel("raymarch", [](Array out, Scalar inv, Scalar max_steps) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index i, Index j) {
      Var u = cast<float>(j) * inv;
      Var v = cast<float>(i) * inv;
      Var dx = u - 0.5f, dy = v - 0.5f, dz = 1.0f;
      Var xx = dx * dx;
      Var yy = dy * dy;
      Var s2 = xx + yy;
      Var len = sqrt(s2 + 1.0f);
      dx = dx / len;
      dy = dy / len;
      dz = dz / len;
      Var t = 0.0f;
      Var steps = 0;
      Var px = 0.0f, py = 0.0f, pz = 0.0f, a2 = 0.0f, b2 = 0.0f, c2 = 0.0f, e2 = 0.0f, f2 = 0.0f;
      while_([&] { return steps < max_steps; },
             [&] {
               px = dx * t;
               py = dy * t;
               pz = dz * t;
               pz = pz - 3.0f;
               Value ax = px - 0.4f;
               a2 = ax * ax;
               b2 = py * py;
               c2 = pz * pz;
               Value d1 = sqrt(a2 + b2 + c2) - 0.5f;
               Value bx = px + 0.5f;
               Value by = py - 0.2f;
               e2 = bx * bx;
               f2 = by * by;
               Value d2 = sqrt(e2 + f2 + c2) - 0.3f;
               Value d3 = py + 0.6f;
               Value d = min(min(d1, d2), d3);
               if_(d < 0.001f, [&] { break_(); });
               t = t + d;
               if_(t > 20.0f, [&] { break_(); });
               steps += 1;
             });
      out(i, j) = steps;
    });
  });
  return k;
}

struct Rays {
  bench::Buffer<std::int32_t> out{std::size_t(kSide * kSide), -1};
  tack::Array tout = bench::cpu().zeros(tack::DType::I32, {kSide, kSide});
};
Rays& rays() {
  static auto* d = new Rays;
  return *d;
}

const float kInv = 1.0f / float(kSide);

void BM_raymarch_cpp(benchmark::State& state) {
  Rays& d = rays();
  double per =
      bench::timed_loop(state, "raymarch/cpp", [&] { raymarch_cpp(d.out.data(), kSide, kSide, kInv, kMaxSteps); });
  bench::per_second(state, "Mray/s", double(kSide * kSide) / 1e6, per);
}

void BM_raymarch_tack(benchmark::State& state) {
  Rays& d = rays();
  const tack::Kernel& k = raymarch_kernel();
  static bool checked = [&] {
    k(d.tout, kInv, kMaxSteps);  // compiles
    raymarch_cpp(d.out.data(), kSide, kSide, kInv, kMaxSteps);
    bench::check_close("raymarch", d.tout.to_host<std::int32_t>(), d.out.data(), std::size_t(kSide * kSide));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "raymarch/tack", [&] {
    k(d.tout, kInv, kMaxSteps);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Mray/s", double(kSide * kSide) / 1e6, per);
}

}  // namespace

BENCHMARK(BM_raymarch_cpp)->Name("raymarch/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_raymarch_tack)->Name("raymarch/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
