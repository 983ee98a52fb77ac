// Host cost of dispatching a tiny kernel: saxpy over 16 f32, called again and
// again with the variant already compiled, on the serial device
// (num_threads = 1) and on the default CPU device (TACK_CPU_THREADS, else the
// physical cores). The C++ rows are the same 16-element loop called directly
// (serial) and inside an OpenMP parallel for (what a fork/join costs).
#include "common.hpp"

namespace {

using namespace tack::lang;

constexpr std::size_t kN = 16;

const tack::Kernel& tiny_kernel() {
  static const tack::Kernel k = tack::kernel(
      "saxpy16", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}

__attribute__((noinline)) void tiny_serial(float* __restrict y, const float* __restrict x, float a, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
__attribute__((noinline)) void tiny_omp(float* __restrict y, const float* __restrict x, float a, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

struct Tiny {
  tack::Device dev;
  bench::Buffer<float> x = bench::uniform<float>(kN, -1.0f, 1.0f), y = bench::uniform<float>(kN, -1.0f, 1.0f);
  tack::Array tx, ty;
  float a = 1e-3f;
  explicit Tiny(tack::Device d) : dev(std::move(d)), tx(dev.from_host(x.span())), ty(dev.from_host(y.span())) {
    const tack::Kernel& k = tiny_kernel();
    k(ty, tx, a);  // compiles
    tiny_serial(y.data(), x.data(), a, kN);
    bench::check_close("dispatch16", ty.to_host<float>(), y.data(), kN, 1e-6, 1e-7);
    for (int i = 0; i < 1000; ++i) k(ty, tx, a);  // past the launch policy's sampling
    dev.synchronize();
  }
};
Tiny& serial_data() {
  static auto* d =
      new Tiny(bench::device_name() == "cpu" ? tack::device("cpu", {{"num_threads", std::int64_t{1}}}) : bench::cpu());
  return *d;
}
Tiny& default_data() {
  static auto* d = new Tiny(bench::device_name() == "cpu" ? tack::device("cpu") : bench::cpu());
  return *d;
}

void tack_calls(benchmark::State& state, Tiny& d, const char* name) {
  const tack::Kernel& k = tiny_kernel();
  bench::timed_loop(state, name, [&] { k(d.ty, d.tx, d.a); });
  d.dev.synchronize();
  state.SetLabel(d.dev.capabilities().display_name);
}

void BM_serial_cpp(benchmark::State& state) {
  bench::Buffer<float> x = bench::uniform<float>(kN, -1.0f, 1.0f), y = bench::uniform<float>(kN, -1.0f, 1.0f);
  bench::timed_loop(state, "dispatch16/serial/cpp", [&] { tiny_serial(y.data(), x.data(), 1e-3f, kN); });
}
void BM_serial_tack(benchmark::State& state) { tack_calls(state, serial_data(), "dispatch16/serial/tack"); }
void BM_default_cpp(benchmark::State& state) {
  bench::Buffer<float> x = bench::uniform<float>(kN, -1.0f, 1.0f), y = bench::uniform<float>(kN, -1.0f, 1.0f);
  bench::timed_loop(state, "dispatch16/default/cpp", [&] { tiny_omp(y.data(), x.data(), 1e-3f, kN); });
}
void BM_default_tack(benchmark::State& state) { tack_calls(state, default_data(), "dispatch16/default/tack"); }

}  // namespace

BENCHMARK(BM_serial_cpp)->Name("dispatch16/serial/cpp")->UseRealTime();
BENCHMARK(BM_serial_tack)->Name("dispatch16/serial/tack")->UseRealTime();
BENCHMARK(BM_default_cpp)->Name("dispatch16/default/cpp")->UseRealTime();
BENCHMARK(BM_default_tack)->Name("dispatch16/default/tack")->UseRealTime();
