// tack_bench_compile: cold compile time per variant. Each iteration makes a
// fresh kernel object that captures a constant no other iteration uses, so its
// first call traces, specializes, optimizes, generates LLVM IR, runs LLVM O3,
// emits object code and links it: a new variant every time. The disk cache is
// off (TACK_CACHE=0, set here before the first Tack call), and TACK_CACHE_DIR
// points at an empty scratch folder that is checked to stay empty.
#include "common.hpp"
#include "d2q9_kernel.hpp"

#include <stdlib.h>
#include <filesystem>

namespace {

using namespace tack::lang;

// A constant no earlier variant of this process used.
float next_salt() {
  static int n = 0;
  return static_cast<float>(++n) + 0.5f;
}

struct Args {
  tack::Array x = bench::cpu().from_host(std::vector<float>(16, 1.5f));
  tack::Array y = bench::cpu().from_host(std::vector<float>(16, 2.5f));
  tack::Array img = bench::cpu().zeros(tack::DType::I32, {4, 4});
  tack::Array grid_in = bench::cpu().from_host(std::vector<float>(16 * 16, 0.5f), {16, 16});
  tack::Array grid_out = bench::cpu().zeros(tack::DType::F32, {16, 16});
  tack::Array f_in = bench::cpu().from_host(std::vector<float>(9 * 4 * 4, 0.1f), {9, 4, 4});
  tack::Array f_out = bench::cpu().zeros(tack::DType::F32, {9, 4, 4});
};
Args& args() {
  static auto* a = new Args;
  return *a;
}

tack::Kernel saxpy(float c) {
  return tack::kernel("saxpy_cold", [c](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i] + c; });
  });
}

tack::Kernel jacobi(float c) {
  return tack::kernel("jacobi_cold", [c](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = c * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
    });
  });
}

tack::Kernel mandelbrot(float c) {
  return tack::kernel("mandelbrot_cold", [c](Array out, Scalar x0, Scalar y0, Scalar dx, Scalar dy, Scalar maxit) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index i, Index j) {
      Var tx = cast<float>(j) * dx;
      Var cx = tx + x0;
      Var ty = cast<float>(i) * dy;
      Var cy = ty + y0;
      Var x = 0.0f, y = 0.0f, x2 = 0.0f, y2 = 0.0f, xy = 0.0f;
      Var it = 0;
      while_([&] { return it < maxit; },
             [&] {
               x2 = x * x;
               y2 = y * y;
               if_(x2 + y2 > c, [&] { break_(); });
               xy = x * y;
               y = xy + xy + cy;
               x = x2 - y2 + cx;
               it += 1;
             });
      out(i, j) = it;
    });
  });
}

tack::Kernel lbm(float c) { return bench::d2q9::make_kernel("lbm_cold", c); }

void call(const std::string& which, const tack::Kernel& k) {
  Args& a = args();
  if (which == "saxpy") k(a.y, a.x, 2.0f);
  if (which == "jacobi") k(a.grid_out, a.grid_in);
  if (which == "mandelbrot") k(a.img, -2.0f, -1.25f, 0.625f, 0.625f, 64);
  if (which == "lbm") k(a.f_out, a.f_in, 1.25f);
  bench::cpu().synchronize();
}

tack::Kernel make(const std::string& which, float c) {
  if (which == "saxpy") return saxpy(c);
  if (which == "jacobi") return jacobi(c);
  if (which == "mandelbrot") return mandelbrot(c);
  return lbm(c);
}

std::vector<tack::KernelArg> args_of(const std::string& which) {
  Args& a = args();
  if (which == "saxpy") return {a.y, a.x, 2.0f};
  if (which == "jacobi") return {a.grid_out, a.grid_in};
  if (which == "mandelbrot") return {a.img, -2.0f, -1.25f, 0.625f, 0.625f, 64};
  return {a.f_out, a.f_in, 1.25f};
}

// tack::precompile of 16 new variants (four of each kernel) on `threads` threads.
void BM_precompile16(benchmark::State& state, int threads) {
  for (auto _ : state) {
    std::vector<tack::PrecompileRequest> requests;
    for (int n = 0; n < 16; ++n) {
      const char* which = n % 4 == 0 ? "saxpy" : n % 4 == 1 ? "jacobi" : n % 4 == 2 ? "mandelbrot" : "lbm";
      requests.push_back({make(which, next_salt()), args_of(which)});
    }
    tack::precompile(bench::cpu(), requests, threads);
  }
  state.SetLabel("time = 16 variants");
}

void BM_cold(benchmark::State& state, std::string which) {
  for (auto _ : state) {
    tack::Kernel k = make(which, next_salt());
    call(which, k);
  }
  state.SetLabel("time = per variant");
}

class Reporter : public benchmark::ConsoleReporter {
 public:
  Reporter() : benchmark::ConsoleReporter(bench::console_options()) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    benchmark::ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs)
      if (!r.error_occurred && r.run_type == Run::RT_Iteration && r.iterations > 0)
        ms_[r.run_name.function_name] = 1e3 * r.real_accumulated_time / static_cast<double>(r.iterations);
  }
  void print_summary() const {
    std::printf("\n%-28s %14s %12s  %s\n", "cold compile", "ms/variant", "target", "verdict");
    for (const auto& [name, ms] : ms_) {
      if (name.rfind("precompile16", 0) == 0) continue;
      bool saxpy = name == "cold_compile/saxpy";
      std::string target = saxpy ? "<= 30 ms" : "-", verdict = saxpy ? (ms <= 30 ? "PASS" : "MISS") : "-";
      std::printf("%-28s %11.3f ms %12s  %s\n", name.c_str(), ms, target.c_str(), verdict.c_str());
      char t[32];
      std::snprintf(t, sizeof t, "%.3f ms", ms);
      bench::result_line(name + "|" + t + "|-|-|" + target + "|" + verdict);
    }
    auto serial = ms_.find("precompile16/1"), parallel = ms_.find("precompile16/2");
    if (serial != ms_.end() && parallel != ms_.end()) {
      const double ratio = parallel->second / serial->second;
      std::printf("%-28s %11.3f ms (16 variants; serially %.3f ms): %.2fx, target <= 0.60x  %s\n",
                  "precompile, 2 threads", parallel->second, serial->second, ratio, ratio <= 0.6 ? "PASS" : "MISS");
      char t[96];
      std::snprintf(t, sizeof t, "%.1f ms for 16 (serially %.1f ms): %.2fx", parallel->second, serial->second, ratio);
      bench::result_line(std::string("precompile of 16 kernels, 2 threads|") + t + "|-|-|<= 0.6x|" +
                         (ratio <= 0.6 ? "PASS" : "MISS"));
    }
    std::fflush(stdout);
  }

 private:
  std::map<std::string, double> ms_;
};

}  // namespace

int main(int argc, char** argv) {
  // Before anything in Tack reads the environment.
  setenv("TACK_CACHE", "0", 1);
  char dir[] = "/tmp/tack-bench-nocache-XXXXXX";
  if (!mkdtemp(dir)) {
    std::perror("mkdtemp");
    return 1;
  }
  setenv("TACK_CACHE_DIR", dir, 1);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const char* which : {"saxpy", "jacobi", "mandelbrot", "lbm"})
    benchmark::RegisterBenchmark((std::string("cold_compile/") + which).c_str(), BM_cold, std::string(which))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();

  for (int threads : {1, 2})
    benchmark::RegisterBenchmark(("precompile16/" + std::to_string(threads)).c_str(), BM_precompile16, threads)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();

  // One untimed compile first: the JIT, the thread pool and the device start here.
  call("saxpy", make("saxpy", next_salt()));

  Reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_summary();
  benchmark::Shutdown();

  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) files += e.is_regular_file();
  std::filesystem::remove_all(dir);
  if (files) {
    std::fprintf(stderr, "WARNING: TACK_CACHE=0, yet %zu file(s) were written to TACK_CACHE_DIR\n", files);
    return 2;
  }
  return 0;
}
