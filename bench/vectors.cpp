// tack_bench_vectors: what the kernel language's Vec3 costs (issue 29).
//   nbody/cpp, nbody/tack            the n-body step (examples/nbody/nbody_kernel.hpp, Vec3) against
//                                    hand-written OpenMP C++ over plain float arrays; target Tack <= 1.2x C++
//   nbody_vs_scalar/cpp, .../tack    the same step written with scalars in Tack ("cpp" here is that scalar
//                                    Tack kernel) against the Vec3 kernel; target Vec3 <= 1.05x scalar
//   vec_compile200/cpp, .../tack     tracing + cold compile of a kernel of 200 vector operations ("tack")
//                                    against its scalar-written twin ("cpp"); target <= 2x
// 4096 bodies (TACK_BENCH_QUICK: 512). The disk cache is off (TACK_CACHE=0, set before the first Tack call).
#include "common.hpp"

#include "../examples/nbody/nbody_kernel.hpp"

#include <stdlib.h>

namespace {

using namespace tack::lang;

int bodies() { return bench::quick() ? 512 : 4096; }
constexpr float kDt = 0.001f, kEps2 = 0.01f;

// The same step written with scalars: what a Tack user wrote before Vec3.
const tack::Kernel& scalar_kernel() {
  static const tack::Kernel k =
      tack::kernel("nbody_step_scalar", [](Array pos_out, Array vel, Array pos, Array mass, Scalar dt, Scalar eps2) {
        parallel_for(pos.shape(0), [&](Index i) {
          const Value px = pos(i, 0), py = pos(i, 1), pz = pos(i, 2);
          Var ax = 0.0, ay = 0.0, az = 0.0;
          for_range(0, pos.shape(0), [&](Index j) {
            const Value dx = pos(j, 0) - px, dy = pos(j, 1) - py, dz = pos(j, 2) - pz;
            const Value inv_r = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
            const Value w = mass[j] * inv_r * inv_r * inv_r;
            ax += dx * w;
            ay += dy * w;
            az += dz * w;
          });
          const Value vx = vel(i, 0) + ax * dt, vy = vel(i, 1) + ay * dt, vz = vel(i, 2) + az * dt;
          vel(i, 0) = vx;
          vel(i, 1) = vy;
          vel(i, 2) = vz;
          pos_out(i, 0) = px + vx * dt;
          pos_out(i, 1) = py + vy * dt;
          pos_out(i, 2) = pz + vz * dt;
        });
      });
  return k;
}

// Hand-written as a performance engineer would: the positions copied once into three plain arrays (x, y, z), so
// that the inner loop over j reads them contiguously and vectorizes without gathers; OpenMP over the bodies i. The
// copy is O(n), timed with the O(n^2) loop. Vectorizing the inner loop over the (n, 3) layout directly (stride-3
// gathers) took about 1.7x as long in a side-by-side test, and `omp parallel for simd` over i longer still.
void nbody_cpp(float* pos_out, float* vel, const float* pos, const float* mass, int n, float dt, float eps2) {
  static std::vector<float> xs, ys, zs;  // scratch, kept between calls (the benchmark calls from one thread)
  xs.resize(static_cast<std::size_t>(n));
  ys.resize(static_cast<std::size_t>(n));
  zs.resize(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    xs[static_cast<std::size_t>(j)] = pos[3 * j];
    ys[static_cast<std::size_t>(j)] = pos[3 * j + 1];
    zs[static_cast<std::size_t>(j)] = pos[3 * j + 2];
  }
  const float *x = xs.data(), *y = ys.data(), *z = zs.data();
#pragma omp parallel for num_threads(bench::threads()) schedule(static)
  for (int i = 0; i < n; ++i) {
    const float px = x[i], py = y[i], pz = z[i];
    float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
    for (int j = 0; j < n; ++j) {
      const float dx = x[j] - px, dy = y[j] - py, dz = z[j] - pz;
      const float inv_r = 1.0f / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
      const float w = mass[j] * inv_r * inv_r * inv_r;
      ax += dx * w;
      ay += dy * w;
      az += dz * w;
    }
    const float vx = vel[3 * i] + ax * dt, vy = vel[3 * i + 1] + ay * dt, vz = vel[3 * i + 2] + az * dt;
    vel[3 * i] = vx;
    vel[3 * i + 1] = vy;
    vel[3 * i + 2] = vz;
    pos_out[3 * i] = px + vx * dt;
    pos_out[3 * i + 1] = py + vy * dt;
    pos_out[3 * i + 2] = pz + vz * dt;
  }
}

std::vector<float> random(std::size_t n, float lo, float hi) {
  bench::Buffer<float> b = bench::uniform<float>(n, lo, hi);
  return std::vector<float>(b.data(), b.data() + n);
}

struct Bodies {
  int n = bodies();
  std::vector<float> pos = random(static_cast<std::size_t>(3 * n), -1.0f, 1.0f);
  std::vector<float> vel = std::vector<float>(static_cast<std::size_t>(3 * n), 0.0f);
  std::vector<float> mass = random(static_cast<std::size_t>(n), 0.5f, 1.5f);
  tack::Array tpos = bench::cpu().from_host(pos, {n, 3}), tout = bench::cpu().zeros(tack::DType::F32, {n, 3});
  tack::Array tvel = bench::cpu().from_host(vel, {n, 3}), tmass = bench::cpu().from_host(mass);
  std::vector<float> out = std::vector<float>(static_cast<std::size_t>(3 * n));
};
Bodies& bodies_data() {
  static auto* d = new Bodies;
  return *d;
}

// Both Tack kernels give the C++ positions after one step from the same start (within f32 rounding).
void check(const tack::Kernel& k, const char* name) {
  Bodies& d = bodies_data();
  std::vector<float> vel(d.vel), out(d.out.size());
  nbody_cpp(out.data(), vel.data(), d.pos.data(), d.mass.data(), d.n, kDt, kEps2);
  tack::Array v = bench::cpu().from_host(d.vel, {d.n, 3});
  k(d.tout, v, d.tpos, d.tmass, kDt, kEps2);
  bench::check_close(name, d.tout.to_host<float>(), out.data(), out.size(), 1e-4, 1e-5);
}

void BM_nbody_cpp(benchmark::State& state) {
  Bodies& d = bodies_data();
  double per = bench::timed_loop(
      state, "nbody/cpp", [&] { nbody_cpp(d.out.data(), d.vel.data(), d.pos.data(), d.mass.data(), d.n, kDt, kEps2); });
  bench::per_second(state, "Gpairs/s", double(d.n) * d.n / 1e9, per);
}

void run_tack(benchmark::State& state, const tack::Kernel& k, const char* name) {
  Bodies& d = bodies_data();
  double per = bench::timed_loop(state, name, [&] {
    k(d.tout, d.tvel, d.tpos, d.tmass, kDt, kEps2);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Gpairs/s", double(d.n) * d.n / 1e9, per);
}

void BM_nbody_tack(benchmark::State& state) {
  static bool checked = (check(nbody_kernel(), "nbody vec3"), true);
  (void)checked;
  static const tack::Kernel k = nbody_kernel();
  run_tack(state, k, "nbody/tack");
}
void BM_nbody_scalar(benchmark::State& state) {
  static bool checked = (check(scalar_kernel(), "nbody scalar"), true);
  (void)checked;
  run_tack(state, scalar_kernel(), "nbody_vs_scalar/cpp");
}
void BM_nbody_vec_vs_scalar(benchmark::State& state) {
  static const tack::Kernel k = nbody_kernel();
  run_tack(state, k, "nbody_vs_scalar/tack");
}

// ---- tracing + cold compile: 200 vector operations against the same in scalars ----

float next_salt() {
  static int n = 0;
  return static_cast<float>(++n) + 0.5f;
}

// v = v * w + u, 100 times: 200 vector operations (600 scalar ones).
tack::Kernel vector_ops(float salt) {
  return tack::kernel("vec_ops200", [salt](ArrayOf<Vec3> out, ArrayOf<Vec3> a) {
    parallel_for(out.shape(0), [&](Index i) {
      Vec3 v = a[i];
      const Vec3 w = v * salt, u = vec3(1.0f, 2.0f, 3.0f);
      for (int k = 0; k < 100; ++k) v = v * w + u;
      out[i] = v;
    });
  });
}
tack::Kernel scalar_ops(float salt) {
  return tack::kernel("scalar_ops200", [salt](Array out, Array a) {
    parallel_for(out.shape(0), [&](Index i) {
      Value x = a(i, 0), y = a(i, 1), z = a(i, 2);
      const Value wx = x * salt, wy = y * salt, wz = z * salt;
      for (int k = 0; k < 100; ++k) {
        x = x * wx + 1.0f;
        y = y * wy + 2.0f;
        z = z * wz + 3.0f;
      }
      out(i, 0) = x;
      out(i, 1) = y;
      out(i, 2) = z;
    });
  });
}

void run_cold(benchmark::State& state, const char* name, tack::Kernel (*make)(float)) {
  tack::Array out = bench::cpu().zeros(tack::DType::F32, {16, 3});
  tack::Array a = bench::cpu().from_host(std::vector<float>(48, 0.5f), {16, 3});
  bench::timed_loop(state, name, [&] {
    tack::Kernel k = make(next_salt());
    k(out, a);  // traces, specializes, optimizes, generates and compiles a new variant
    bench::cpu().synchronize();
  });
}
void BM_scalar_cold(benchmark::State& state) { run_cold(state, "vec_compile200/cpp", scalar_ops); }
void BM_vector_cold(benchmark::State& state) { run_cold(state, "vec_compile200/tack", vector_ops); }

}  // namespace

BENCHMARK(BM_nbody_cpp)->Name("nbody/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nbody_tack)->Name("nbody/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nbody_scalar)->Name("nbody_vs_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nbody_vec_vs_scalar)->Name("nbody_vs_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scalar_cold)->Name("vec_compile200/cpp")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_vector_cold)->Name("vec_compile200/tack")->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(10);

int main(int argc, char** argv) {
  // Before anything in Tack reads the environment: every variant compiled cold, none read from disk.
  ::setenv("TACK_CACHE", "0", 1);
  return bench::run_with_summary(argc, argv);
}
