// The opencl backend on whatever OpenCL platform is installed (PoCL in CI):
// device selection, the disk cache of program binaries across processes,
// per-dispatch scalar packs, device reductions and queued launches. Every test
// skips, printing the reason, where tack::device("opencl") is unavailable.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/opencl/opencl_backend.hpp"
#include "backends/opencl/opencl_device.hpp"
#include "backends/opencl/opencl_kernel.hpp"
#include "errors/error_helpers.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/reductions/device_reductions.hpp"
#include "support/opencl_device_test.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using namespace tack::lang;
namespace ocl = tack::backends::opencl;

namespace {

// The cache test's child process: a fresh process (spawned, since OpenCL
// drivers do not survive fork) that runs one kernel and reports how it got its
// program through the exit code. It runs before main() when the parent sets
// TACK_TEST_OPENCL_CACHE_CHILD.
enum ChildExit { kBuilt = 20, kLoaded = 21, kBoth = 22, kWrong = 23, kThrew = 24 };

int cache_child() {
  try {
    auto k = tack::kernel("opencl_cache_axpb", [](Array y, Array x, Scalar a) {
      parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + 1.0f; });
    });
    tack::Device dev = tack::device("opencl");
    std::vector<float> hx(300);
    for (int i = 0; i < 300; ++i) hx[i] = static_cast<float>(i);
    tack::Array x = dev.from_host(hx), y = dev.zeros(tack::DType::F32, {300});
    k(y, x, 2.0f);
    std::vector<float> out = y.to_host<float>();
    for (int i = 0; i < 300; ++i)
      if (out[i] != 2.0f * hx[i] + 1.0f) return kWrong;
    const bool built = ocl::source_build_count() > 0, loaded = ocl::binary_load_count() > 0;
    return built && loaded ? kBoth : built ? kBuilt : kLoaded;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child threw: %s\n", e.what());
    return kThrew;
  }
}

const bool g_is_child = [] {
  if (std::getenv("TACK_TEST_OPENCL_CACHE_CHILD")) {
    int code = cache_child();
    std::fflush(nullptr);
    _exit(code);
  }
  return false;
}();

// Runs this test binary as a cache child with the cache in `dir`.
int spawn_child(const fs::path& dir) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    std::string s = *e;
    if (s.rfind("TACK_CACHE", 0) == 0) continue;  // TACK_CACHE_DIR and TACK_CACHE are set below
    env_text.push_back(s);
  }
  env_text.push_back("TACK_CACHE_DIR=" + dir.string());
  env_text.push_back("TACK_TEST_OPENCL_CACHE_CHILD=1");
  std::vector<char*> envp;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  char* argv[] = {self.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

using OpenCL = tack_test::OpenCLDeviceTest;

// ---- device selection ---------------------------------------------------------

TEST_F(OpenCL, DeviceByIndexAndBySubstring) {
  std::vector<ocl::DeviceInfo> devices = ocl::list_devices();
  ASSERT_FALSE(devices.empty());
  const ocl::DeviceInfo& last = devices.back();
  tack::Device by_index = tack::device("opencl", {{"device", std::int64_t{last.index}}});
  EXPECT_NE(by_index.capabilities().display_name.find(last.device_name), std::string::npos);
  tack::Device by_text = tack::device("opencl", {{"device", std::to_string(last.index)}});
  EXPECT_NE(by_text.capabilities().display_name.find(last.device_name), std::string::npos);
  // Case-insensitive part of "<platform> <device>".
  std::string part = last.device_name.substr(0, std::min<std::size_t>(6, last.device_name.size()));
  for (char& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string want;  // the first device whose label holds the part, ignoring case
  for (const auto& d : devices) {
    std::string label = d.label();
    for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (want.empty() && label.find(part) != std::string::npos) want = d.device_name;
  }
  tack::Device by_name = tack::device("opencl", {{"device", part}});
  EXPECT_EQ(by_name.capabilities().display_name, "OpenCL (" + want + ")");
}

TEST_F(OpenCL, DeviceFromEnvironmentAndOptionWins) {
  std::vector<ocl::DeviceInfo> devices = ocl::list_devices();
  ::setenv("TACK_OPENCL_DEVICE", std::to_string(devices.back().index).c_str(), 1);
  auto from_env = tack::backends::opencl::make_opencl_backend({});
  EXPECT_NE(from_env->caps().display_name.find(devices.back().device_name), std::string::npos);
  ::setenv("TACK_OPENCL_DEVICE", "no such device anywhere", 1);
  EXPECT_TACK_ERROR(tack::backends::opencl::make_opencl_backend({}), tack::InvalidArgument, "TACK_OPENCL_DEVICE",
                    "no such device anywhere", "the devices are", devices.front().device_name);
  // An explicit option is chosen over the environment.
  auto from_option = tack::backends::opencl::make_opencl_backend({{"device", std::int64_t{0}}});
  EXPECT_NE(from_option->caps().display_name.find(devices.front().device_name), std::string::npos);
  ::unsetenv("TACK_OPENCL_DEVICE");
}

TEST_F(OpenCL, BadDeviceChoicesNameTheDevices) {
  std::vector<ocl::DeviceInfo> devices = ocl::list_devices();
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", std::string("zz-no-such-gpu")}}), tack::InvalidArgument,
                    "option 'device'", "zz-no-such-gpu", "the devices are", "0: " + devices.front().label());
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", std::int64_t{9999}}}), tack::InvalidArgument,
                    "9999 is not a device index", devices.front().label());
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", 1.5}}), tack::InvalidArgument, "integer index or a name");
}

TEST_F(OpenCL, CapabilitiesFollowTheDevice) {
  const ocl::DeviceInfo d = ocl::choose_device({});
  const tack::Capabilities& c = dev_.capabilities();
  EXPECT_EQ(c.supports_f64, d.has_extension("cl_khr_fp64"));
  EXPECT_TRUE(c.supports_atomic(tack::DType::F32));
  EXPECT_TRUE(c.supports_device_reductions);
  EXPECT_EQ(c.device_options, std::vector<std::string>{"device"});
  std::cout << "[ NOTE     ] " << d.label() << ", " << d.device_version << ", build options '" << ocl::build_options(d)
            << "'\n";
}

// ---- the disk cache -------------------------------------------------------------

TEST_F(OpenCL, ProgramBinaryCacheHitInANewProcessDoesNotBuild) {
  fs::path dir = fs::temp_directory_path() / ("tack-opencl-cache-" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(spawn_child(dir), kBuilt) << "a cold cache builds from source";
  auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(spawn_child(dir), kLoaded) << "a warm cache loads the binary without building";
  auto t2 = std::chrono::steady_clock::now();
  std::cout << "[ NOTE     ] cold process " << std::chrono::duration<double, std::milli>(t1 - t0).count()
            << " ms, warm process " << std::chrono::duration<double, std::milli>(t2 - t1).count() << " ms\n";
  fs::remove_all(dir);
}

// ---- scalar packs ---------------------------------------------------------------

TEST_F(OpenCL, EachQueuedLaunchReadsItsOwnScalars) {
  auto fill = tack::kernel("opencl_fill_scalar", [](Array out, Scalar v, Scalar k) {
    parallel_for(out.size(), [&](Index i) { out[i] = v + k * 0; });
  });
  const std::int64_t n = 1 << 18;
  std::vector<tack::Array> outs;
  for (int j = 0; j < 8; ++j) outs.push_back(dev_.zeros(tack::DType::F32, {n + j}));
  // Eight launches of one variant, queued back to back with different scalars and extents.
  for (int j = 0; j < 8; ++j) fill(outs[static_cast<std::size_t>(j)], 0.5f + static_cast<float>(j), 3.0f);
  for (int j = 0; j < 8; ++j) {
    std::vector<float> h = outs[static_cast<std::size_t>(j)].to_host<float>();
    ASSERT_EQ(h.size(), static_cast<std::size_t>(n + j));
    EXPECT_EQ(h.front(), 0.5f + static_cast<float>(j));
    EXPECT_EQ(h.back(), 0.5f + static_cast<float>(j)) << "launch " << j;
  }
  auto add = tack::kernel("opencl_add_scalar",
                          [](Array x, Scalar v) { parallel_for(x.size(), [&](Index i) { x[i] = x[i] + v; }); });
  tack::Array x = dev_.zeros(tack::DType::I32, {1000});
  for (int j = 1; j <= 100; ++j) add(x, j);
  std::vector<std::int32_t> hx = x.to_host<std::int32_t>();
  EXPECT_EQ(hx[0], 5050);
  EXPECT_EQ(hx[999], 5050);
}

// ---- device reductions ------------------------------------------------------------

TEST_F(OpenCL, DeviceReductionsMatchTheHostWithNaNRules) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  tack::Device host = tack::device("interp");
  auto check = [&](const std::vector<float>& v, const std::string& what) {
    tack::Array a = dev_.from_host(v), h = host.from_host(v);
    const std::uint64_t launches = tack::runtime::DeviceReductions::launch_count();
    const double got_min = a.min<double>(), got_max = a.max<double>(), got_sum = a.sum<double>();
    // Not a host fallback (whose results are the same): the device ran all three.
    EXPECT_EQ(tack::runtime::DeviceReductions::launch_count(), launches + 3) << what << ": reduced on the host";
    double want_min = h.min<double>(), want_max = h.max<double>();
    if (std::isnan(want_min)) {
      EXPECT_TRUE(std::isnan(got_min)) << what;
      EXPECT_TRUE(std::isnan(got_max)) << what;
    } else {
      EXPECT_EQ(got_min, want_min) << what;
      EXPECT_EQ(got_max, want_max) << what;
    }
    double abs_sum = 0;
    for (float x : v) abs_sum += std::isnan(x) ? 0 : std::fabs(x);
    double want_sum = h.sum<double>();
    if (std::isnan(want_sum))
      EXPECT_TRUE(std::isnan(got_sum)) << what;
    else
      EXPECT_LE(std::fabs(got_sum - want_sum), static_cast<double>(v.size()) * 1.2e-7 * abs_sum) << what;
  };
  check({nan, 3.0f, -2.0f, nan, 7.5f}, "NaNs among numbers");
  check({nan, nan, nan}, "all NaN");
  check({-0.0f}, "one element");
  std::vector<float> big(1'000'003);
  std::uint32_t s = 7;
  for (float& x : big) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<std::int32_t>(s)) / 2147483648.0f * 100.0f;
  }
  big[123457] = nan;
  big[999999] = -1000.0f;
  big[5] = 1000.0f;
  check(big, "a million values and one NaN");
  // The device path is taken (not a host fallback).
  double out = 0;
  tack::Array a = dev_.from_host(std::vector<float>{1, 2, 3});
  EXPECT_TRUE(tack::detail::Access::backend(dev_)->reduce_device(*tack::detail::Access::storage(a),
                                                                 tack::runtime::ReduceOp::Sum, &out));
  EXPECT_EQ(out, 6.0);
  EXPECT_EQ(dev_.zeros(tack::DType::F32, {0}).sum<float>(), 0.0f);
}

// ---- queued launches ----------------------------------------------------------------

TEST_F(OpenCL, LaunchesAreQueuedAndAHostReadWaits) {
  auto spin = tack::kernel("opencl_spin", [](Array out, Scalar steps) {
    parallel_for(out.size(), [&](Index i) {
      Var acc = 0.0f;
      for_range(0, steps, [&](Index j) { acc = acc * 0.5f + 1.0f; });
      out[i] = acc;
    });
  });
  tack::Array out = dev_.zeros(tack::DType::F32, {1 << 14});
  spin(out, 1);  // compiles
  dev_.synchronize();
  auto t0 = std::chrono::steady_clock::now();
  spin(out, 40000);
  auto t1 = std::chrono::steady_clock::now();
  std::vector<float> h = out.to_host<float>();
  auto t2 = std::chrono::steady_clock::now();
  const double launch_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double read_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  EXPECT_EQ(h[0], 2.0f);
  EXPECT_EQ(h.back(), 2.0f);
  std::cout << "[ NOTE     ] launch returned after " << launch_ms << " ms, the read waited " << read_ms << " ms\n";
  EXPECT_LT(launch_ms, read_ms) << "the launch should return before the kernel finishes";
}

// ---- launch sizes ---------------------------------------------------------------------

TEST_F(OpenCL, OversizedLaunchIsRefusedAndAnEmptyOneRunsNothing) {
  auto k = tack::kernel("opencl_many_groups", [](Array out, Scalar groups) {
    workgroup_for(groups, [&](Group g) { if_(g.global_id() == 0, [&] { out[0] = out[0] + 1; }); });
  });
  if (!dev_.capabilities().supports_workgroups) GTEST_SKIP() << "this OpenCL device has no workgroups";
  tack::Array out = dev_.zeros(tack::DType::I32, {1});
  // 2^57 groups of 256 work-items overflow a 64-bit size_t.
  EXPECT_TACK_ERROR(k(out, std::int64_t{1} << 57), tack::InvalidArgument, "opencl_many_groups", "more than");
  k(out, std::int64_t{0});
  k(out, std::int64_t{3});
  EXPECT_EQ(out.to_host<std::int32_t>()[0], 1);
}

}  // namespace
