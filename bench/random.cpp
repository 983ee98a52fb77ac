// Philox uniforms, 2^24 f32 (issue 29, point 5): out[i] = tack::lang::Random(seed, i)
// .uniform(), one generator per element, against the same Philox4x32-10 written by
// hand in a plain OpenMP loop. Both give the same bits (checked before timing).
#include "common.hpp"

#include <tack/random.hpp>

namespace {

using namespace tack::lang;

const std::int64_t kN = bench::quick() ? (1 << 16) : (1 << 24);
constexpr std::uint64_t kSeed = 0x0123456789abcdefull;

// Block 0 of stream i: counter (0, 0, low(i), high(i)), key (low(seed), high(seed)); its first word.
inline std::uint32_t philox_first_word(std::uint64_t stream, std::uint64_t seed) {
  std::uint32_t c0 = 0, c1 = 0, c2 = static_cast<std::uint32_t>(stream), c3 = static_cast<std::uint32_t>(stream >> 32);
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c0, p1 = std::uint64_t{0xCD9E8D57u} * c2;
    std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<std::uint32_t>(p1);
    c3 = static_cast<std::uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c0;
}

__attribute__((noinline)) void uniforms_cpp(float* __restrict out, std::int64_t n, std::uint64_t seed) {
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = static_cast<float>(philox_first_word(static_cast<std::uint64_t>(i), seed) >> 8) * 0x1p-24f;
}

const tack::Kernel& uniforms_kernel() {
  static const tack::Kernel k = tack::kernel("philox_uniforms", [](ArrayOf<float> out, Scalar seed) {
    parallel_for(out.size(), [&](Index i) {
      Random rng(seed, i);
      out[i] = rng.uniform();
    });
  });
  return k;
}

struct Data {
  bench::Buffer<float> out{std::size_t(kN), -1.0f};
  tack::Array tout = bench::cpu().zeros(tack::DType::F32, {kN});
};
Data& data() {
  static auto* d = new Data;
  return *d;
}

void BM_philox_cpp(benchmark::State& state) {
  Data& d = data();
  double per = bench::timed_loop(state, "philox_uniforms/cpp", [&] { uniforms_cpp(d.out.data(), kN, kSeed); });
  bench::per_second(state, "G/s", double(kN) / 1e9, per);
}

void BM_philox_tack(benchmark::State& state) {
  Data& d = data();
  const tack::Kernel& k = uniforms_kernel();
  static bool checked = [&] {
    k(d.tout, kSeed);  // compiles
    uniforms_cpp(d.out.data(), kN, kSeed);
    bench::check_close("philox uniforms", d.tout.to_host<float>(), d.out.data(), std::size_t(kN));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "philox_uniforms/tack", [&] {
    k(d.tout, kSeed);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "G/s", double(kN) / 1e9, per);
}

}  // namespace

BENCHMARK(BM_philox_cpp)->Name("philox_uniforms/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_philox_tack)->Name("philox_uniforms/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
