// The assignment step of k-means (issue 31, point 9): 2^20 points of 8 f32 features, 16 centres; each point finds
// its nearest centre (squared distance, the first on ties), writes its membership and atomic_adds its features and
// a 1 into the centre's sums and count. Timed against the C++ a performance engineer writes (OpenMP threads keep
// private sums, combined once by an array reduction), and, as `kmeans_noatomic`, the atomic-free rewrite that only
// writes memberships on both sides; each again with the Tack kernel compiled for the scalar path (TACK_CPU_SIMD=0).
#include "common.hpp"

#include <cfloat>

namespace {

using namespace tack::lang;

const std::int64_t kPoints = bench::quick() ? (1 << 12) : (1 << 20);
constexpr int kF = 8, kK = 16;

struct Data {
  bench::Buffer<float> points = bench::uniform<float>(std::size_t(kPoints * kF), 0.0f, 1.0f);
  bench::Buffer<float> centres = bench::uniform<float>(std::size_t(kK * kF), 0.0f, 1.0f);
  bench::Buffer<std::int32_t> membership{std::size_t(kPoints)}, counts{std::size_t(kK)};
  bench::Buffer<float> sums{std::size_t(kK * kF)};
  tack::Array tpoints = bench::to_device(points, {kPoints * kF}), tcentres = bench::to_device(centres, {kK * kF});
  tack::Array tmembership = bench::cpu().zeros(tack::DType::I32, {kPoints});
  tack::Array tsums = bench::cpu().zeros(tack::DType::F32, {kK * kF});
  tack::Array tcounts = bench::cpu().zeros(tack::DType::I32, {kK});
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

// The nearest centre of point p: every product its own statement, summed in feature order, as the Tack kernel does.
inline int nearest(const float* __restrict p, const float* __restrict centres) {
  int best = 0;
  float best_d = FLT_MAX;
  for (int c = 0; c < kK; ++c) {
    float d = 0.0f;
    for (int f = 0; f < kF; ++f) {
      const float t = p[f] - centres[c * kF + f];
      d += t * t;
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

__attribute__((noinline)) void kmeans_cpp(std::int32_t* __restrict membership, float* __restrict sums,
                                          std::int32_t* __restrict counts, const float* __restrict points,
                                          const float* __restrict centres, std::int64_t n) {
  std::fill(sums, sums + kK * kF, 0.0f);
  std::fill(counts, counts + kK, 0);
  // Memberships first, a loop GCC vectorizes across points; then the same points (the same static schedule) into
  // the thread's private sums. One loop doing both runs 3-4x slower here: the scattered adds keep it scalar.
#pragma omp parallel reduction(+ : sums[:kK * kF], counts[:kK])
  {
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) membership[i] = nearest(points + i * kF, centres);
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) {
      const int c = membership[i];
      for (int f = 0; f < kF; ++f) sums[c * kF + f] += points[i * kF + f];
      counts[c] += 1;
    }
  }
}

__attribute__((noinline)) void kmeans_noatomic_cpp(std::int32_t* __restrict membership, float* __restrict,
                                                   std::int32_t* __restrict, const float* __restrict points,
                                                   const float* __restrict centres, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) membership[i] = nearest(points + i * kF, centres);
}

// The nearest centre of point i, as `nearest` computes it (a Var per product, so nothing is fused).
Value nearest_centre(const Array& points, const Array& centres, const Index& i) {
  Var best = 0, best_d = FLT_MAX;
  for_range(0, kK, [&](Index c) {
    Var d = 0.0f;
    for (int f = 0; f < kF; ++f) {
      Value t = points[i * kF + f] - centres[c * kF + f];
      Var sq = t * t;
      d = d + sq;
    }
    if_(d < best_d, [&] {
      best_d = d;
      best = c;
    });
  });
  return best;
}

tack::Kernel make_kernel(const char* name, bool atomics) {
  return tack::kernel(name, [atomics](Array membership, Array sums, Array counts, Array points, Array centres) {
    parallel_for(membership.size(), [&](Index i) {
      Var c = nearest_centre(points, centres, i);
      membership[i] = c;
      if (!atomics) return;
      for (int f = 0; f < kF; ++f) atomic_add(sums, c * kF + f, points[i * kF + f]);
      atomic_add(counts, c, 1);
    });
  });
}

using CppFn = decltype(&kmeans_cpp);

void run_cpp(benchmark::State& state, const char* name, CppFn f) {
  Data& d = data();
  bench::timed_loop(state, name, [&] {
    f(d.membership.data(), d.sums.data(), d.counts.data(), d.points.data(), d.centres.data(), kPoints);
  });
}

// atomics = false: the atomic-free rewrite; simd = false compiles the kernel for the scalar path.
void run_tack(benchmark::State& state, const char* name, bool atomics, bool simd) {
  Data& d = data();
  static const tack::Kernel gangs = make_kernel("kmeans", true), scalar = make_kernel("kmeans_scalar", true);
  static const tack::Kernel gangs_na = make_kernel("kmeans_noatomic", false),
                            scalar_na = make_kernel("kmeans_noatomic_scalar", false);
  const tack::Kernel& k = atomics ? (simd ? gangs : scalar) : (simd ? gangs_na : scalar_na);
  auto call = [&] {
    if (atomics) {
      d.tsums.fill(0.0f);
      d.tcounts.fill(std::int32_t{0});
    }
    k(d.tmembership, d.tsums, d.tcounts, d.tpoints, d.tcentres);
  };
  bench::compile_with_simd(simd, call);
  kmeans_cpp(d.membership.data(), d.sums.data(), d.counts.data(), d.points.data(), d.centres.data(), kPoints);
  bench::check_close(name, d.tmembership.to_host<std::int32_t>(), d.membership.data(), std::size_t(kPoints));
  if (atomics) {
    bench::check_close(name, d.tcounts.to_host<std::int32_t>(), d.counts.data(), std::size_t(kK));
    // f32 sums of ~2^16 values each, added in another order (up to 1e-4 apart, seen at full size): relative room.
    bench::check_close(name, d.tsums.to_host<float>(), d.sums.data(), std::size_t(kK * kF), 1e-3);
  }
  bench::timed_loop(state, name, [&] {
    call();
    bench::cpu().synchronize();
  });
}

void BM_kmeans_cpp(benchmark::State& state) { run_cpp(state, "kmeans/cpp", kmeans_cpp); }
void BM_kmeans_tack(benchmark::State& state) { run_tack(state, "kmeans/tack", true, true); }
void BM_kmeans_scalar_cpp(benchmark::State& state) { run_cpp(state, "kmeans_scalar/cpp", kmeans_cpp); }
void BM_kmeans_scalar_tack(benchmark::State& state) { run_tack(state, "kmeans_scalar/tack", true, false); }
void BM_kmeans_noatomic_cpp(benchmark::State& state) { run_cpp(state, "kmeans_noatomic/cpp", kmeans_noatomic_cpp); }
void BM_kmeans_noatomic_tack(benchmark::State& state) { run_tack(state, "kmeans_noatomic/tack", false, true); }
void BM_kmeans_noatomic_scalar_cpp(benchmark::State& state) {
  run_cpp(state, "kmeans_noatomic_scalar/cpp", kmeans_noatomic_cpp);
}
void BM_kmeans_noatomic_scalar_tack(benchmark::State& state) {
  run_tack(state, "kmeans_noatomic_scalar/tack", false, false);
}

}  // namespace

BENCHMARK(BM_kmeans_cpp)->Name("kmeans/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_tack)->Name("kmeans/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_scalar_cpp)->Name("kmeans_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_scalar_tack)->Name("kmeans_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_noatomic_cpp)->Name("kmeans_noatomic/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_noatomic_tack)->Name("kmeans_noatomic/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_noatomic_scalar_cpp)
    ->Name("kmeans_noatomic_scalar/cpp")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_kmeans_noatomic_scalar_tack)
    ->Name("kmeans_noatomic_scalar/tack")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
