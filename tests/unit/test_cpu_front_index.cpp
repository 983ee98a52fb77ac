// The disk cache's front index on the CPU (runtime/kernels/front_index.hpp, docs/caching.md "The front index"),
// end to end: each run is a forked child, a new process with the cache directory of the test, which calls kernels,
// checks every result and reports what compile_stats() saw. A second process must find each variant before typing
// (no inference, no optimizer, no compile) and run it as the first did; what keys the entry (the signature,
// TACK_CPU_SIMD) must keep other variants apart; what a launch reads beyond the range (private adds, the pack)
// must come back, computed launch ranges included; and the variants whose launch needs more (prints, debug mode)
// must take the full path.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/cpu/jit.hpp"
#include "runtime/cache/disk_cache.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace tack::lang;

namespace {

// What a child saw, written to a pipe as numbers.
struct Seen {
  long variants = -1, disk_hits = -1, front_hits = -1, compiles = -1, warnings = -1;
  double infer_ms = -1, optimize_ms = -1;
  int wrong = -1;     // results that differ from the host's
  std::string error;  // what a call threw, if it did
};

// Runs `calls` (which returns the number of wrong results) in a child with TACK_CACHE_DIR=dir and `env` set.
Seen run_child(const fs::path& dir, const std::function<int()>& calls,
               const std::vector<std::pair<const char*, const char*>>& env = {}) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ::setenv("TACK_CACHE_DIR", dir.c_str(), 1);
    ::unsetenv("TACK_CACHE");
    for (const auto& [name, value] : env) ::setenv(name, value, 1);
    // Another test in this process (one process runs them all under the sanitizers) may have made the
    // process's cache from another environment before the fork.
    tack::runtime::DiskCache::reconfigure_global_for_tests();
    tack::set_debug(false);  // TACK_DEBUG is read once per process, maybe before this fork: set it directly
    long warnings = 0;
    tack::runtime::set_warning_handler([&](const std::string& w) {
      ++warnings;
      std::fprintf(stderr, "child warning: %s\n", w.c_str());
    });
    int wrong = 0;
    std::string error;
    try {
      wrong = calls();
    } catch (const tack::Error& e) {
      error = e.what();
    }
    const tack::CompileStats s = tack::compile_stats();
    std::string out = std::to_string(s.variants) + " " + std::to_string(s.disk_hits) + " " +
                      std::to_string(s.front_hits) + " " + std::to_string(tack::backends::cpu::Jit::compile_count()) +
                      " " + std::to_string(warnings) + " " + std::to_string(s.infer_ms) + " " +
                      std::to_string(s.optimize_ms) + " " + std::to_string(wrong) + " " + error;
    (void)!::write(fds[1], out.data(), out.size());
    close(fds[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Seen seen;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return seen;
  char error[400] = {};
  std::sscanf(text.c_str(), "%ld %ld %ld %ld %ld %lf %lf %d %399[^\n]", &seen.variants, &seen.disk_hits,
              &seen.front_hits, &seen.compiles, &seen.warnings, &seen.infer_ms, &seen.optimize_ms, &seen.wrong, error);
  seen.error = error;
  return seen;
}

// A periodic 2-D stencil: a range of two array extents, nine loads, a scalar.
tack::Kernel stencil() {
  return tack::kernel("front_stencil", [](Array out, Array in, Scalar c) {
    parallel_for({in.shape(0), in.shape(1)}, [&](Index i, Index j) {
      Value h = in.shape(0), w = in.shape(1);
      Value up = select(i == 0, h - 1, i - 1), left = select(j == 0, w - 1, j - 1);
      out(i, j) = c * (in(up, j) + in(i, left)) + in(i, j);
    });
  });
}

int run_stencil(tack::DType dtype) {
  auto dev = tack::device("cpu");
  constexpr int h = 7, w = 9;
  std::vector<double> host(h * w);
  for (int k = 0; k < h * w; ++k) host[static_cast<std::size_t>(k)] = 0.25 * k - 3;
  tack::Array in = dtype == tack::DType::F64 ? dev.from_host(host, {h, w})
                                             : dev.from_host(std::vector<float>(host.begin(), host.end()), {h, w});
  tack::Array out = dev.zeros(dtype, {h, w});
  stencil()(out, in, 0.5);
  const std::vector<double> got = out.to_host<double>();
  int wrong = 0;
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      auto at = [&](int a, int b) { return host[static_cast<std::size_t>(a * w + b)]; };
      const double want = 0.5 * (at((i + h - 1) % h, j) + at(i, (j + w - 1) % w)) + at(i, j);
      const double tolerance = dtype == tack::DType::F64 ? 0 : 1e-5;
      wrong += std::abs(got[static_cast<std::size_t>(i * w + j)] - want) > tolerance;
    }
  return wrong;
}

// A range of a scalar (an i32 Scalar cast to the range's i64 or read as it is): the first n elements.
int run_scalar_range(std::int32_t n) {
  auto dev = tack::device("cpu");
  auto k = tack::kernel("front_first_n", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i] = y[i] + 1; }); });
  tack::Array y = dev.zeros(tack::DType::I32, {16});
  k(y, n);
  const std::vector<std::int32_t> got = y.to_host<std::int32_t>();
  int wrong = 0;
  for (int i = 0; i < 16; ++i) wrong += got[static_cast<std::size_t>(i)] != (i < n ? 1 : 0);
  return wrong;
}

// A histogram: atomic adds into an array small enough for private copies, which the restored launch must make.
int run_histogram() {
  auto dev = tack::device("cpu");
  auto k = tack::kernel("front_histogram", [](Array bins, Array values) {
    parallel_for(values.size(), [&](Index i) { atomic_add(bins, values[i] % 8, 1); });
  });
  std::vector<std::int32_t> values(100000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * 7 % 13);
  tack::Array bins = dev.zeros(tack::DType::I32, {8});
  k(bins, dev.from_host(values));
  std::vector<std::int32_t> want(8, 0);
  for (std::int32_t v : values) ++want[static_cast<std::size_t>(v % 8)];
  const std::vector<std::int32_t> got = bins.to_host<std::int32_t>();
  int wrong = 0;
  for (int b = 0; b < 8; ++b) wrong += got[static_cast<std::size_t>(b)] != want[static_cast<std::size_t>(b)];
  return wrong;
}

// A range the launch evaluates with the host evaluator: an integer expression, and a cast of a float one.
int run_computed_range() {
  auto dev = tack::device("cpu");
  auto k = tack::kernel("front_computed", [](Array y, Scalar n, Scalar scale) {
    parallel_for({n * 2 - 7, cast(tack::DType::I64, scale * n) + 1}, [&](Index i, Index j) { y(i, j) = 3; });
  });
  tack::Array y = dev.zeros(tack::DType::I32, {4, 16});
  k(y, std::int32_t{5}, 2.0f);  // a range of 3 by 11
  const std::vector<std::int32_t> got = y.to_host<std::int32_t>();
  int wrong = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) wrong += got[static_cast<std::size_t>(i * 16 + j)] != (i < 3 && j < 11 ? 3 : 0);
  return wrong;
}

// A kernel that prints: its launch binds the print arrays that typing made, so no front entry.
int run_printing() {
  auto dev = tack::device("cpu");
  auto k = tack::kernel("front_print", [](Array y) {
    parallel_for(y.size(), [&](Index i) { if_(i == 0, [&] { print("front index {}", y[i]); }); });
  });
  tack::Array y = dev.zeros(tack::DType::I32, {4});
  k(y);
  dev.synchronize();
  return 0;
}

// The files of the cache directory that are front entries (their payload starts so).
std::vector<fs::path> front_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream f(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.find("tack-front-1\n") != std::string::npos) out.push_back(e.path());
  }
  return out;
}

class CpuFrontIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tack-front-index-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CpuFrontIndex, ASecondProcessRunsTheVariantWithNoTypingOrCompile) {
  const Seen first = run_child(dir_, [] { return run_stencil(tack::DType::F32); });
  ASSERT_EQ(first.wrong, 0) << first.error;
  EXPECT_EQ(first.compiles, 1);
  EXPECT_EQ(first.front_hits, 0);
  EXPECT_GT(first.infer_ms, 0);
  EXPECT_EQ(front_files(dir_).size(), 1u) << "one front entry beside the object entry";

  const Seen second = run_child(dir_, [] { return run_stencil(tack::DType::F32); });
  EXPECT_EQ(second.wrong, 0) << second.error;
  EXPECT_EQ(second.compiles, 0);
  EXPECT_EQ(second.disk_hits, 1);
  EXPECT_EQ(second.front_hits, 1);
  EXPECT_EQ(second.infer_ms, 0) << "a front hit types nothing";
  EXPECT_EQ(second.optimize_ms, 0);
  EXPECT_EQ(second.warnings, 0);
}

// This process made its cache from another directory before the children ran (as another test of the same
// process may have, where one process runs them all): each child still uses the directory it was given.
TEST_F(CpuFrontIndex, AChildUsesItsOwnDirectoryWhateverCacheThisProcessMade) {
  const fs::path elsewhere = dir_.string() + "-elsewhere";
  fs::remove_all(elsewhere);
  fs::create_directories(elsewhere);
  const char* was_dir = std::getenv("TACK_CACHE_DIR");
  const char* was_on = std::getenv("TACK_CACHE");
  const std::string saved_dir = was_dir ? was_dir : "", saved_on = was_on ? was_on : "";
  ::setenv("TACK_CACHE_DIR", elsewhere.c_str(), 1);
  ::unsetenv("TACK_CACHE");
  tack::runtime::DiskCache::reconfigure_global_for_tests();
  EXPECT_EQ(tack::runtime::DiskCache::global().dir(), tack::runtime::absolute_cache_dir(elsewhere.string()));
  const Seen first = run_child(dir_, [] { return run_stencil(tack::DType::F32); });
  const Seen second = run_child(dir_, [] { return run_stencil(tack::DType::F32); });
  if (was_dir)
    ::setenv("TACK_CACHE_DIR", saved_dir.c_str(), 1);
  else
    ::unsetenv("TACK_CACHE_DIR");
  if (was_on)
    ::setenv("TACK_CACHE", saved_on.c_str(), 1);
  else
    ::unsetenv("TACK_CACHE");
  tack::runtime::DiskCache::reconfigure_global_for_tests();
  EXPECT_EQ(first.wrong, 0) << first.error;
  EXPECT_EQ(first.compiles, 1);
  EXPECT_EQ(front_files(dir_).size(), 1u) << "the entries are in the child's directory";
  EXPECT_TRUE(fs::is_empty(elsewhere)) << "nothing in this process's";
  fs::remove_all(elsewhere);
  EXPECT_EQ(second.compiles, 0);
  EXPECT_EQ(second.front_hits, 1);
}

TEST_F(CpuFrontIndex, AnotherSignatureIsAnotherEntry) {
  ASSERT_EQ(run_child(dir_, [] { return run_stencil(tack::DType::F32); }).wrong, 0);
  const Seen f64 = run_child(dir_, [] { return run_stencil(tack::DType::F64); });
  EXPECT_EQ(f64.wrong, 0) << f64.error;
  EXPECT_EQ(f64.front_hits, 0) << "f64 arrays are not the f32 variant";
  EXPECT_EQ(f64.compiles, 1);
  EXPECT_EQ(front_files(dir_).size(), 2u);
  const Seen again = run_child(dir_, [] { return run_stencil(tack::DType::F64); });
  EXPECT_EQ(again.wrong, 0) << again.error;
  EXPECT_EQ(again.front_hits, 1);
}

TEST_F(CpuFrontIndex, TheSimdSwitchIsInTheKey) {
  ASSERT_EQ(run_child(dir_, [] { return run_stencil(tack::DType::F32); }).wrong, 0);
  const Seen scalar = run_child(dir_, [] { return run_stencil(tack::DType::F32); }, {{"TACK_CPU_SIMD", "0"}});
  EXPECT_EQ(scalar.wrong, 0) << scalar.error;
  EXPECT_EQ(scalar.front_hits, 0) << "the scalar path's code is not the gangs'";
  EXPECT_EQ(scalar.compiles, 1);
}

TEST_F(CpuFrontIndex, ScalarRangesComeBackAndStillRefuseANegativeRange) {
  ASSERT_EQ(run_child(dir_, [] { return run_scalar_range(10); }).wrong, 0);
  const Seen ten = run_child(dir_, [] { return run_scalar_range(10); });
  EXPECT_EQ(ten.wrong, 0) << ten.error;
  EXPECT_EQ(ten.front_hits, 1);
  const Seen three = run_child(dir_, [] { return run_scalar_range(3); });
  EXPECT_EQ(three.wrong, 0) << three.error;
  EXPECT_EQ(three.front_hits, 1) << "a scalar's value is no part of any key";
  const Seen negative = run_child(dir_, [] { return run_scalar_range(-2); });
  EXPECT_EQ(negative.front_hits, 1);
  EXPECT_NE(negative.error.find("kernel 'front_first_n': the range of dimension 0 is negative (-2)"), std::string::npos)
      << negative.error;
}

TEST_F(CpuFrontIndex, PrivateAddsComeBack) {
  ASSERT_EQ(run_child(dir_, [] { return run_histogram(); }).wrong, 0);
  const Seen second = run_child(dir_, [] { return run_histogram(); });
  EXPECT_EQ(second.wrong, 0) << second.error;
  EXPECT_EQ(second.front_hits, 1);
  EXPECT_EQ(second.compiles, 0);
}

TEST_F(CpuFrontIndex, ComputedRangesComeBack) {
  ASSERT_EQ(run_child(dir_, run_computed_range).wrong, 0);
  const Seen second = run_child(dir_, run_computed_range);
  EXPECT_EQ(second.wrong, 0) << second.error;
  EXPECT_EQ(second.front_hits, 1);
  EXPECT_EQ(second.compiles, 0);
}

TEST_F(CpuFrontIndex, AKernelThatPrintsTakesTheFullPath) {
  ASSERT_EQ(run_child(dir_, run_printing).wrong, 0);
  EXPECT_TRUE(front_files(dir_).empty());
  const Seen second = run_child(dir_, run_printing);
  EXPECT_EQ(second.wrong, 0) << second.error;
  EXPECT_EQ(second.front_hits, 0);
  EXPECT_EQ(second.disk_hits, 1) << "the object entry still serves it";
  EXPECT_EQ(second.compiles, 0);
  EXPECT_GT(second.infer_ms, 0);
}

TEST_F(CpuFrontIndex, DebugModeTakesTheFullPath) {
  ASSERT_EQ(run_child(dir_, [] { return run_stencil(tack::DType::F32); }).wrong, 0);
  const Seen debug = run_child(dir_, [] {
    tack::set_debug(true);
    return run_stencil(tack::DType::F32);
  });
  EXPECT_EQ(debug.wrong, 0) << debug.error;
  EXPECT_EQ(debug.front_hits, 0);
  EXPECT_GT(debug.infer_ms, 0);
}

TEST_F(CpuFrontIndex, DumpingTheIrTakesTheFullPath) {
  ASSERT_EQ(run_child(dir_, [] { return run_stencil(tack::DType::F32); }).wrong, 0);
  const Seen dumped =
      run_child(dir_, [] { return run_stencil(tack::DType::F32); }, {{"TACK_DUMP_IR", "1"}, {"TACK_LOG", ""}});
  EXPECT_EQ(dumped.wrong, 0) << dumped.error;
  EXPECT_EQ(dumped.front_hits, 0);
  EXPECT_EQ(dumped.disk_hits, 1);
  EXPECT_GT(dumped.infer_ms, 0);
}

// A damaged front entry is removed with the disk cache's warning; the object entry serves the call, which writes
// the front entry again.
TEST_F(CpuFrontIndex, ADamagedEntryFallsBackToTheObjectEntry) {
  ASSERT_EQ(run_child(dir_, [] { return run_stencil(tack::DType::F32); }).wrong, 0);
  const std::vector<fs::path> fronts = front_files(dir_);
  ASSERT_EQ(fronts.size(), 1u);
  fs::resize_file(fronts[0], fs::file_size(fronts[0]) - 40);
  const Seen damaged = run_child(dir_, [] { return run_stencil(tack::DType::F32); });
  EXPECT_EQ(damaged.wrong, 0) << damaged.error;
  EXPECT_EQ(damaged.warnings, 1);
  EXPECT_EQ(damaged.front_hits, 0);
  EXPECT_EQ(damaged.disk_hits, 1);
  EXPECT_EQ(damaged.compiles, 0);
  const Seen again = run_child(dir_, [] { return run_stencil(tack::DType::F32); });
  EXPECT_EQ(again.wrong, 0) << again.error;
  EXPECT_EQ(again.front_hits, 1) << "the entry was written again";
  EXPECT_EQ(again.warnings, 0);
}

}  // namespace
