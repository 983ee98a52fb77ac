// A pow-heavy kernel (issue 31, point 2): the likelihood of particlefilter, each particle summing
// ((v - 100)^2 - (v - 228)^2) / 50 over the image values v under a disk of offsets around it, written with
// pow(x, 2.0) as that port writes it. Timed against the C++ loop a performance engineer writes (x * x, OpenMP,
// -march=native) in the same run, and again with the Tack kernel compiled for the scalar path (TACK_CPU_SIMD=0),
// which the gangs must not lose to.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kParticles = bench::quick() ? (1 << 12) : (1 << 18);
constexpr std::int64_t kSide = 512;
constexpr int kRadius = 3;

struct Data {
  std::vector<int> dx, dy;  // the disk's offsets
  bench::Buffer<float> image{std::size_t(kSide * kSide)};
  bench::Buffer<std::int32_t> px{std::size_t(kParticles)}, py{std::size_t(kParticles)};
  bench::Buffer<float> out{std::size_t(kParticles)};
  tack::Array timage, tpx, tpy, tdx, tdy, tout;
  Data() {
    for (int y = -kRadius; y <= kRadius; ++y)
      for (int x = -kRadius; x <= kRadius; ++x)
        if (x * x + y * y <= kRadius * kRadius) {
          dx.push_back(x);
          dy.push_back(y);
        }
    for (std::int64_t i = 0; i < kSide * kSide; ++i) image[std::size_t(i)] = static_cast<float>((i * 7919) % 256);
    std::uint64_t s = 12345;
    auto next = [&] {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<std::int32_t>((s >> 33) % std::uint64_t(kSide - 2 * kRadius)) + kRadius;
    };
    for (std::int64_t i = 0; i < kParticles; ++i) {
      px[std::size_t(i)] = next();
      py[std::size_t(i)] = next();
    }
    timage = bench::to_device(image, {kSide * kSide});
    tpx = bench::to_device(px, {kParticles});
    tpy = bench::to_device(py, {kParticles});
    tdx = bench::cpu().from_host(dx);
    tdy = bench::cpu().from_host(dy);
    tout = bench::cpu().zeros(tack::DType::F32, {kParticles});
  }
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

__attribute__((noinline)) void likelihood_cpp(float* __restrict out, const float* __restrict image,
                                              const std::int32_t* __restrict px, const std::int32_t* __restrict py,
                                              const int* __restrict dx, const int* __restrict dy, int taps,
                                              std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int k = 0; k < taps; ++k) {
      const float v = image[(py[i] + dy[k]) * kSide + px[i] + dx[k]];
      const float a = v - 100.0f, b = v - 228.0f;
      s += (a * a - b * b) / 50.0f;
    }
    out[i] = s;
  }
}

tack::Kernel make_kernel(const char* name) {
  return tack::kernel(name, [](Array out, Array image, Array px, Array py, Array dx, Array dy) {
    parallel_for(out.size(), [&](Index i) {
      Var s = 0.0f;
      for_range(0, dx.size(), [&](Index k) {
        Value v = image[(py[i] + dy[k]) * kSide + px[i] + dx[k]];
        s = s + (pow(v - 100.0f, 2.0) - pow(v - 228.0f, 2.0)) / 50.0f;
      });
      out[i] = s;
    });
  });
}

void run_cpp(benchmark::State& state, const char* name) {
  Data& d = data();
  bench::timed_loop(state, name, [&] {
    likelihood_cpp(d.out.data(), d.image.data(), d.px.data(), d.py.data(), d.dx.data(), d.dy.data(),
                   static_cast<int>(d.dx.size()), kParticles);
  });
}

// simd = false compiles the kernel for the scalar path.
void run_tack(benchmark::State& state, const char* name, bool simd) {
  Data& d = data();
  static const tack::Kernel gangs = make_kernel("likelihood"), scalar = make_kernel("likelihood_scalar");
  const tack::Kernel& k = simd ? gangs : scalar;
  bench::compile_with_simd(simd, [&] { k(d.tout, d.timage, d.tpx, d.tpy, d.tdx, d.tdy); });
  likelihood_cpp(d.out.data(), d.image.data(), d.px.data(), d.py.data(), d.dx.data(), d.dy.data(),
                 static_cast<int>(d.dx.size()), kParticles);
  // Sums of 37 terms, each side contracting its products into fmas where it chooses.
  bench::check_close(name, d.tout.to_host<float>(), d.out.data(), std::size_t(kParticles), 1e-5, 1e-2);
  bench::timed_loop(state, name, [&] {
    k(d.tout, d.timage, d.tpx, d.tpy, d.tdx, d.tdy);
    bench::cpu().synchronize();
  });
}

void BM_likelihood_cpp(benchmark::State& state) { run_cpp(state, "likelihood/cpp"); }
void BM_likelihood_tack(benchmark::State& state) { run_tack(state, "likelihood/tack", true); }
void BM_likelihood_scalar_cpp(benchmark::State& state) { run_cpp(state, "likelihood_scalar/cpp"); }
void BM_likelihood_scalar_tack(benchmark::State& state) { run_tack(state, "likelihood_scalar/tack", false); }

}  // namespace

BENCHMARK(BM_likelihood_cpp)->Name("likelihood/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_likelihood_tack)->Name("likelihood/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_likelihood_scalar_cpp)->Name("likelihood_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_likelihood_scalar_tack)->Name("likelihood_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
