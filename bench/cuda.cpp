// tack_bench_cuda: the cuda backend against the device's own copy engine path.
//
//   tack_bench_cuda [--quick]
//
// Bandwidth of saxpy (y = a*x + y) and triad (a = b + s*c) in GB/s, each as a
// percentage of a device-to-device copy (cuMemcpyDtoDAsync) of the same
// arrays, the roofline a streaming kernel can reach; the host cost of queueing
// one small launch (10 000 launches without a wait, divided); the cold compile
// of a new variant (generator + NVRTC + module load, disk cache off) and a
// disk-cache hit in a new process (both median over 20 variants, run as child
// processes of this binary). Prints "RESULT <name> <value> <unit>" lines for
// tests/device/run_cuda.sh, then a table. Without a CUDA device it prints
// "SKIP: <reason>" and exits 0.
#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_memory.hpp"

#include <tack/tack.hpp>

#include <stdlib.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;
namespace cu = tack::backends::cuda::driver;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void result(const char* name, double value, const char* unit) {
  std::printf("RESULT %s %.4f %s\n", name, value, unit);
  std::fflush(stdout);
}

// The copies go through the driver on the calling thread: make sure a context of the device is current.
void ensure_context() {
  const cu::Api& api = cu::api();
  cu::CUcontext current = nullptr;
  cu::check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current) return;
  cu::CUcontext primary = nullptr;
  cu::check(api.cuDevicePrimaryCtxRetain(&primary, 0), "cuDevicePrimaryCtxRetain");  // kept: the process ends first
  cu::check(api.cuCtxSetCurrent(primary), "cuCtxSetCurrent");
}

// Seconds per repetition of `body`, after one untimed run; the device is idle before and after.
template <class F>
double per_rep(tack::Device& dev, int reps, F&& body, const std::function<void()>& wait) {
  body();
  wait();
  auto t0 = Clock::now();
  for (int r = 0; r < reps; ++r) body();
  wait();
  return seconds_since(t0) / reps;
}

int bandwidth(tack::Device& dev, bool quick) {
  const std::int64_t n = std::int64_t{1} << (quick ? 20 : 26);  // 256 MiB per f32 array
  const int reps = quick ? 5 : 40;
  const double bytes = 4.0 * static_cast<double>(n);
  tack::Array x = dev.from_host(std::vector<float>(n, 1.0f));
  tack::Array y = dev.from_host(std::vector<float>(n, 2.0f));
  tack::Array z = dev.zeros(tack::DType::F32, {n});
  dev.synchronize();

  ensure_context();
  const cu::Api& api = cu::api();
  const cu::CUdeviceptr px = tack::backends::cuda::device_pointer(x), pz = tack::backends::cuda::device_pointer(z);
  auto stream_wait = [&] { cu::check(api.cuStreamSynchronize(nullptr), "cuStreamSynchronize"); };
  const double copy_s = per_rep(
      dev, reps,
      [&] {
        cu::check(api.cuMemcpyDtoDAsync_v2(pz, px, static_cast<std::size_t>(bytes), nullptr), "cuMemcpyDtoDAsync");
      },
      stream_wait);
  const double copy_gbs = 2 * bytes / copy_s / 1e9;

  auto saxpy = tack::kernel("bench_saxpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  auto triad = tack::kernel("bench_triad", [](Array a, Array b, Array c, Scalar s) {
    parallel_for(a.size(), [&](Index i) { a[i] = b[i] + s * c[i]; });
  });
  auto dev_wait = [&] { dev.synchronize(); };
  const double saxpy_s = per_rep(
      dev, reps, [&] { saxpy(y, x, 0.5f); }, dev_wait);
  const double triad_s = per_rep(
      dev, reps, [&] { triad(z, x, y, 1.75f); }, dev_wait);
  // The results are right: y = 2 + 0.5 per saxpy (reps + 1 of them), z = x + 1.75 y.
  const float y_end = 2.0f + 0.5f * static_cast<float>(reps + 1), z_end = 1.0f + 1.75f * y_end;
  const float got_y = y.read_range<float>(n - 1, 1)[0], got_z = z.read_range<float>(n / 2, 1)[0];
  if (got_y != y_end || std::fabs(got_z - z_end) > 1e-5f * z_end) {
    std::printf("FAIL: saxpy/triad results are wrong: y = %g (expected %g), z = %g (expected %g)\n", got_y, y_end,
                got_z, z_end);
    return 1;
  }
  const double saxpy_gbs = 3 * bytes / saxpy_s / 1e9, triad_gbs = 3 * bytes / triad_s / 1e9;
  result("copy_gbs", copy_gbs, "GB/s");
  result("saxpy_gbs", saxpy_gbs, "GB/s");
  result("saxpy_pct_of_copy", 100 * saxpy_gbs / copy_gbs, "%");
  result("triad_gbs", triad_gbs, "GB/s");
  result("triad_pct_of_copy", 100 * triad_gbs / copy_gbs, "%");

  // Host cost of one queued launch: small launches that the GPU finishes quickly, timed without waiting.
  tack::Array sx = dev.from_host(std::vector<float>(16, 1.0f)), sy = dev.zeros(tack::DType::F32, {16});
  saxpy(sy, sx, 1.0f);
  dev.synchronize();
  const int launches = quick ? 1000 : 10000;
  auto t0 = Clock::now();
  for (int i = 0; i < launches; ++i) saxpy(sy, sx, 1.0f);
  const double queue_s = seconds_since(t0);
  dev.synchronize();
  const double total_s = seconds_since(t0);
  if (sy.read_range<float>(15, 1)[0] != static_cast<float>(launches + 1)) {
    std::printf("FAIL: %d queued launches did not all run\n", launches);
    return 1;
  }
  result("launch_queue_us", 1e6 * queue_s / launches, "us");
  result("launch_total_us", 1e6 * total_s / launches, "us");
  return 0;
}

tack::Kernel salted(float c) {
  return tack::kernel("bench_salted", [c](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i] + c; });
  });
}

// One child phase: the first call of `variants` new kernels, median ms.
int phase(const std::string& which, int variants) {
  tack::Device dev = tack::device("cuda");
  tack::Array x = dev.from_host(std::vector<float>(256, 1.0f)), y = dev.zeros(tack::DType::F32, {256});
  salted(-1.0f)(y, x, 1.0f);  // untimed: loads NVRTC and the driver's JIT
  dev.synchronize();
  std::vector<double> ms;
  std::vector<tack::Kernel> keep;
  for (int v = 0; v < variants; ++v) {
    tack::Kernel k = salted(static_cast<float>(v) + 0.5f);
    auto t0 = Clock::now();
    k(y, x, 1.0f);
    dev.synchronize();
    ms.push_back(1e3 * seconds_since(t0));
    keep.push_back(std::move(k));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("PHASE %s median %.3f ms min %.3f max %.3f\n", which.c_str(), ms[ms.size() / 2], ms.front(), ms.back());
  return 0;
}

// Runs this binary with --phase=<which> and returns its median, or -1.
double child(const std::string& which, int variants) {
  std::string self = std::filesystem::read_symlink("/proc/self/exe");
  std::string cmd = "'" + self + "' --phase=" + which + " " + std::to_string(variants) + " 2>&1";
  std::fflush(stdout);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  double median = -1;
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    if (const char* m = std::strstr(line, "median ")) median = std::atof(m + 7);
    if (std::strncmp(line, "PHASE", 5) != 0) std::fputs(line, stdout);  // errors from the child
  }
  return pclose(p) == 0 ? median : -1;
}

int compile_times(bool quick) {
  const int variants = quick ? 3 : 20;
  char root[] = "/tmp/tack-bench-cuda-XXXXXX";
  if (!mkdtemp(root)) return 1;
  const std::string cache = std::string(root) + "/cache";
  std::filesystem::create_directory(cache);
  setenv("TACK_CACHE_DIR", cache.c_str(), 1);
  setenv("TACK_CACHE", "0", 1);
  const double cold = child("cold", variants);
  setenv("TACK_CACHE", "1", 1);
  const double miss = child("warm", variants);
  const double hit = child("hit", variants);
  std::filesystem::remove_all(root);
  if (cold < 0 || miss < 0 || hit < 0) {
    std::printf("FAIL: a compile phase failed\n");
    return 1;
  }
  result("cold_compile_ms", cold, "ms");
  result("cache_store_ms", miss, "ms");
  result("cache_hit_ms", hit, "ms");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string which;
  int variants = 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a.rfind("--phase=", 0) == 0)
      which = a.substr(8);
    else
      variants = std::max(1, std::atoi(a.c_str()));
  }
  try {
    if (!which.empty()) return phase(which, variants);
    tack::Device dev;
    try {
      dev = tack::device("cuda");
    } catch (const tack::BackendUnavailable& e) {
      std::printf("SKIP: %s\n", e.what());
      return 0;
    } catch (const tack::InvalidArgument& e) {  // a library built without the cuda backend
      std::printf("SKIP: %s\n", e.what());
      return 0;
    }
    std::printf("device: %s\n", dev.capabilities().display_name.c_str());
    int rc = bandwidth(dev, quick);
    rc |= compile_times(quick);
    return rc;
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
}
