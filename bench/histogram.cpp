// Histogram: 2^24 random i32 inputs into 256 i32 bins (bin = x & 255) with
// Tack's atomic_add against OpenMP's `#pragma omp atomic`. Each iteration
// clears the bins first, on both sides.
#include "common.hpp"

namespace {

using namespace tack::lang;

const std::size_t kN = std::size_t{1} << (bench::quick() ? 16 : 24);
constexpr std::size_t kBins = 256;

struct Hist {
  bench::Buffer<std::int32_t> x = bench::uniform<std::int32_t>(kN, 0, INT32_MAX);
  bench::Buffer<std::int32_t> bins{kBins};
  tack::Array tx = bench::to_device(x), tbins = bench::cpu().zeros(tack::DType::I32, {std::int64_t(kBins)});
};
Hist& hist_data() {
  static auto* d = new Hist;
  return *d;
}

__attribute__((noinline)) void histogram_cpp(std::int32_t* __restrict bins, const std::int32_t* __restrict x,
                                             std::int64_t n) {
  std::fill(bins, bins + kBins, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
#pragma omp atomic
    bins[x[i] & 255] += 1;
  }
}

const tack::Kernel& histogram_kernel() {
  static const tack::Kernel k = tack::kernel("histogram", [](Array bins, Array x) {
    parallel_for(x.size(), [&](Index i) { atomic_add(bins, x[i] & 255, 1); });
  });
  return k;
}

void BM_histogram_cpp(benchmark::State& state) {
  Hist& d = hist_data();
  double per = bench::timed_loop(state, "histogram/cpp", [&] { histogram_cpp(d.bins.data(), d.x.data(), kN); });
  bench::per_second(state, "GB/s", (4.0 * kN) / 1e9, per);
}

void BM_histogram_tack(benchmark::State& state) {
  Hist& d = hist_data();
  const tack::Kernel& k = histogram_kernel();
  static bool checked = [&] {
    d.tbins.fill(0);
    k(d.tbins, d.tx);  // compiles
    std::vector<std::int32_t> serial(kBins, 0);
    for (std::size_t i = 0; i < kN; ++i) serial[d.x[i] & 255] += 1;
    histogram_cpp(d.bins.data(), d.x.data(), kN);
    bench::check_close("histogram", d.tbins.to_host<std::int32_t>(), serial.data(), kBins);
    bench::check_close("histogram(C++)", d.bins.vec(), serial.data(), kBins);
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "histogram/tack", [&] {
    d.tbins.fill(0);
    k(d.tbins, d.tx);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GB/s", (4.0 * kN) / 1e9, per);
}

}  // namespace

BENCHMARK(BM_histogram_cpp)->Name("histogram/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_histogram_tack)->Name("histogram/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
