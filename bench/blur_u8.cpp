// A 3x3 box blur of a uint8 image (issue 31, point 5: narrow integers), each output the rounded mean
// (s + 4) / 9 of the nine bytes around it, summed in i32. Timed against the C++ loop a performance engineer
// writes (OpenMP over rows, -march=native, which packs 32 bytes a vector) in the same run, and again with the Tack
// kernel compiled for the scalar path (TACK_CPU_SIMD=0), which the gangs must not lose to.
#include "common.hpp"

#include <cstring>

namespace {

using namespace tack::lang;

const std::int64_t kSide = bench::quick() ? 256 : 4096;
const std::size_t kPixels = std::size_t(kSide) * kSide;

struct Image {
  bench::Buffer<std::uint8_t> in{kPixels}, out{kPixels};
  tack::Array tin, tout;
  Image() {
    std::uint32_t s = 2463534242u;
    for (std::size_t i = 0; i < kPixels; ++i) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      in[i] = static_cast<std::uint8_t>(s);
    }
    tin = bench::to_device(in, {kSide, kSide});
    tout = bench::to_device(out, {kSide, kSide});
  }
};
Image& image() {
  static auto* d = new Image;
  return *d;
}

__attribute__((noinline)) void blur_cpp(std::uint8_t* __restrict out, const std::uint8_t* __restrict in, std::int64_t h,
                                        std::int64_t w) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 1; i < h - 1; ++i) {
    const std::uint8_t *a = in + (i - 1) * w, *b = in + i * w, *c = in + (i + 1) * w;
    for (std::int64_t j = 1; j < w - 1; ++j) {
      const int s = a[j - 1] + a[j] + a[j + 1] + b[j - 1] + b[j] + b[j + 1] + c[j - 1] + c[j] + c[j + 1];
      out[i * w + j] = static_cast<std::uint8_t>((s + 4) / 9);
    }
  }
}

tack::Kernel make_kernel(const char* name) {
  return tack::kernel(name, [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      Value s = cast<std::int32_t>(in(i, j)) + cast<std::int32_t>(in(i, j + 1)) + cast<std::int32_t>(in(i, j + 2)) +
                cast<std::int32_t>(in(i + 1, j)) + cast<std::int32_t>(in(i + 1, j + 1)) +
                cast<std::int32_t>(in(i + 1, j + 2)) + cast<std::int32_t>(in(i + 2, j)) +
                cast<std::int32_t>(in(i + 2, j + 1)) + cast<std::int32_t>(in(i + 2, j + 2));
      out(i + 1, j + 1) = cast<std::uint8_t>((s + 4) / 9);
    });
  });
}

void run_cpp(benchmark::State& state, const char* name) {
  Image& d = image();
  const double per = bench::timed_loop(state, name, [&] { blur_cpp(d.out.data(), d.in.data(), kSide, kSide); });
  bench::per_second(state, "GB/s", 2.0 * double(kPixels) / 1e9, per);
}

// simd = false compiles the kernel for the scalar path.
void run_tack(benchmark::State& state, const char* name, bool simd) {
  Image& d = image();
  static const tack::Kernel gangs = make_kernel("blur_u8"), scalar = make_kernel("blur_u8_scalar");
  const tack::Kernel& k = simd ? gangs : scalar;
  bench::compile_with_simd(simd, [&] { k(d.tout, d.tin); });
  blur_cpp(d.out.data(), d.in.data(), kSide, kSide);
  const std::vector<std::uint8_t> got = d.tout.to_host<std::uint8_t>();
  for (std::int64_t i = 1; i < kSide - 1; ++i)
    if (std::memcmp(got.data() + i * kSide + 1, d.out.data() + i * kSide + 1, std::size_t(kSide - 2)) != 0) {
      std::fprintf(stderr, "%s: row %lld differs from the C++\n", name, static_cast<long long>(i));
      std::exit(1);
    }
  const double per = bench::timed_loop(state, name, [&] {
    k(d.tout, d.tin);
    bench::cpu().synchronize();
  });
  bench::per_second(state, "GB/s", 2.0 * double(kPixels) / 1e9, per);
}

void BM_blur_cpp(benchmark::State& state) { run_cpp(state, "blur_u8/cpp"); }
void BM_blur_tack(benchmark::State& state) { run_tack(state, "blur_u8/tack", true); }
void BM_blur_scalar_cpp(benchmark::State& state) { run_cpp(state, "blur_u8_scalar/cpp"); }
void BM_blur_scalar_tack(benchmark::State& state) { run_tack(state, "blur_u8_scalar/tack", false); }

}  // namespace

BENCHMARK(BM_blur_cpp)->Name("blur_u8/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blur_tack)->Name("blur_u8/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blur_scalar_cpp)->Name("blur_u8_scalar/cpp")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blur_scalar_tack)->Name("blur_u8_scalar/tack")->UseRealTime()->Unit(benchmark::kMillisecond);
