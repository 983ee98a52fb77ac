// Per-work-item arrays: an insertion sort of 16 f32 values per work-item, 2^20
// work-items, with Tack's local_array against the same sort written in C++ over
// a `float a[16]` per item under OpenMP (the kernel: examples/local_sort/). Both sides read 16 values, sort them
// and write them back; the results must be equal element for element.
#include "common.hpp"

#include "../examples/local_sort/local_sort_kernel.hpp"

namespace {

using namespace tack::lang;

const std::int64_t kItems = std::int64_t{1} << (bench::quick() ? 12 : 20);
constexpr int kLen = 16;

struct Sort {
  bench::Buffer<float> in = bench::uniform<float>(std::size_t(kItems * kLen), -1000.0f, 1000.0f);
  bench::Buffer<float> out{std::size_t(kItems * kLen)};
  tack::Array tin = bench::to_device(in, {kItems, kLen}), tout = bench::cpu().zeros(tack::DType::F32, {kItems, kLen});
};
Sort& sort_data() {
  static auto* d = new Sort;
  return *d;
}

__attribute__((noinline)) void local_sort_cpp(float* __restrict out, const float* __restrict in, std::int64_t items) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < items; ++i) {
    float a[kLen];
    for (int k = 0; k < kLen; ++k) a[k] = in[i * kLen + k];
    for (int k = 1; k < kLen; ++k) {
      float key = a[k];
      int j = k - 1;
      while (j >= 0 && a[j] > key) {
        a[j + 1] = a[j];
        j -= 1;
      }
      a[j + 1] = key;
    }
    for (int k = 0; k < kLen; ++k) out[i * kLen + k] = a[k];
  }
}

const tack::Kernel& local_sort_kernel() {
  static const tack::Kernel k = local_sort::sort16_kernel();
  return k;
}

void BM_local_sort_cpp(benchmark::State& state) {
  Sort& d = sort_data();
  double per = bench::timed_loop(state, "local_sort16/cpp", [&] { local_sort_cpp(d.out.data(), d.in.data(), kItems); });
  bench::per_second(state, "Mitems/s", double(kItems) / 1e6, per);
}

void BM_local_sort_tack(benchmark::State& state) {
  Sort& d = sort_data();
  const tack::Kernel& k = local_sort_kernel();
  static bool checked = [&] {
    k(d.tout, d.tin);  // compiles
    local_sort_cpp(d.out.data(), d.in.data(), kItems);
    bench::check_close("local_sort16", d.tout.to_host<float>(), d.out.data(), std::size_t(kItems * kLen));
    return true;
  }();
  (void)checked;
  double per = bench::timed_loop(state, "local_sort16/tack", [&] {
    k(d.tout, d.tin);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "Mitems/s", double(kItems) / 1e6, per);
}

}  // namespace

BENCHMARK(BM_local_sort_cpp)->Name("local_sort16/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_local_sort_tack)->Name("local_sort16/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
