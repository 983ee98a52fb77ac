// Workgroups on the CPU: an n x n f32 matrix multiply three ways. matmul_wg is
// workgroup_for with 16 x 16 tiles in shared memory and two barriers per tile
// (lowered to work-item loops, passes/lower_workgroups.hpp); matmul_plain is
// parallel_for over the outputs with a loop over k (no workgroups); both are
// timed against the same hand-written C++/OpenMP loop (i-k-j order, rows over
// threads). The goal (issue 7): matmul_wg at least as fast as matmul_plain; the
// line after the table gives that ratio.
#include "common.hpp"

#include "../tests/support/tiled_matmul.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kN = bench::quick() ? 64 : 512;

// Small integers: every product and partial sum is exact, so all three agree exactly.
struct Matrices {
  bench::Buffer<float> a{static_cast<std::size_t>(kN * kN)}, b{static_cast<std::size_t>(kN * kN)},
      c{static_cast<std::size_t>(kN * kN)};
  tack::Array ta, tb, tc;
  Matrices() {
    for (std::int64_t i = 0; i < kN * kN; ++i) {
      a[static_cast<std::size_t>(i)] = static_cast<float>((i * 7) % 9 - 4);
      b[static_cast<std::size_t>(i)] = static_cast<float>((i * 5) % 7 - 3);
    }
    ta = bench::to_device(a);
    tb = bench::to_device(b);
    tc = bench::cpu().zeros(tack::DType::F32, {kN * kN});
  }
};
Matrices& data() {
  static auto* d = new Matrices;
  return *d;
}

__attribute__((noinline)) void matmul_cpp(float* __restrict c, const float* __restrict a, const float* __restrict b,
                                          std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float* row = c + i * n;
    std::fill(row, row + n, 0.0f);
    for (std::int64_t k = 0; k < n; ++k) {
      const float aik = a[i * n + k];
      const float* bk = b + k * n;
      for (std::int64_t j = 0; j < n; ++j) row[j] += aik * bk[j];
    }
  }
}

// The tiled kernel the workgroup tests run too (tests/support/tiled_matmul.hpp).
const tack::Kernel& matmul_wg() {
  static const tack::Kernel k = tack_test::tiled_matmul("matmul_wg");
  return k;
}

const tack::Kernel& matmul_plain() {
  static const tack::Kernel k = tack::kernel("matmul_plain", [](Array c, Array a, Array b, Scalar n) {
    parallel_for({n, n}, [&](Index i, Index j) {
      Var acc = 0.0f;
      for_range(0, n, [&](Index k) { acc += a[i * n + k] * b[k * n + j]; });
      c[i * n + j] = acc;
    });
  });
  return k;
}

double flops() { return 2.0 * static_cast<double>(kN) * kN * kN; }

void BM_cpp(benchmark::State& state, const char* name) {
  Matrices& d = data();
  double per = bench::timed_loop(state, name, [&] { matmul_cpp(d.c.data(), d.a.data(), d.b.data(), kN); });
  bench::per_second(state, "GFLOP/s", flops() / 1e9, per);
}

void BM_tack(benchmark::State& state, const tack::Kernel* k, const char* name) {
  Matrices& d = data();
  (*k)(d.tc, d.ta, d.tb, kN);  // compiles
  matmul_cpp(d.c.data(), d.a.data(), d.b.data(), kN);
  bench::check_close(k->name().c_str(), d.tc.to_host<float>(), d.c.data(), d.c.size());
  double per = bench::timed_loop(state, name, [&] {
    (*k)(d.tc, d.ta, d.tb, kN);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GFLOP/s", flops() / 1e9, per);
}

}  // namespace

BENCHMARK_CAPTURE(BM_cpp, wg, "matmul_wg/cpp")->Name("matmul_wg/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_tack, wg, &matmul_wg(), "matmul_wg/tack")
    ->Name("matmul_wg/tack")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cpp, plain, "matmul_plain/cpp")
    ->Name("matmul_plain/cpp")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_tack, plain, &matmul_plain(), "matmul_plain/tack")
    ->Name("matmul_plain/tack")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  int rc = bench::run_with_summary(argc, argv);
  auto& t = bench::loop_times();
  auto wg = t.find("matmul_wg/tack"), plain = t.find("matmul_plain/tack");
  if (wg != t.end() && plain != t.end()) {
    std::printf("n = %lld: matmul_wg is %.2fx the speed of matmul_plain (goal: >= 1)\n", static_cast<long long>(kN),
                plain->second / wg->second);
  }
  return rc;
}
