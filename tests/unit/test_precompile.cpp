// Compiling ahead (Kernel::precompile, tack::precompile) and the compile
// statistics: a precompiled variant is the one the later call runs, many
// kernels compile in parallel, failures come back in request order after every
// request was tried, and TACK_LOG=compile prints one line per variant.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/cpu/jit.hpp"
#include "runtime/kernels/resolve_variant.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace tack::lang;
using tack::DType;

namespace {

// A kernel of its own per k, so each is a distinct variant. The process id is in
// its name, and so in the typed IR the disk cache keys on: the cache (configured
// once per process, maybe on, when a whole suite runs in one process) never holds
// it, so every variant is compiled.
tack::Kernel scale(int k) {
  return tack::kernel("scale_" + std::to_string(k) + "_" + std::to_string(getpid()), [k](Array y, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = y[i] * a + static_cast<float>(k); });
  });
}

// The threads that specialize kernels (on the worker that makes the variant) while it lives. The first
// specialization is held 200 ms, so a second worker has long started and taken a request before the first
// could finish them all, however the machine schedules threads; run one after another, the count stays 1.
class SpecializingThreads {
 public:
  SpecializingThreads() {
    tack::runtime::set_specialize_observer([this](const tack::ir::Kernel&) {
      std::lock_guard lock(mutex_);
      if (ids_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ids_.insert(std::this_thread::get_id());
    });
  }
  ~SpecializingThreads() { tack::runtime::set_specialize_observer({}); }
  SpecializingThreads(const SpecializingThreads&) = delete;
  SpecializingThreads& operator=(const SpecializingThreads&) = delete;
  std::size_t count() {
    std::lock_guard lock(mutex_);
    return ids_.size();
  }

 private:
  std::mutex mutex_;
  std::set<std::thread::id> ids_;
};

// A kernel whose type error is in its last statement, after `statements` others: typing it takes long (about
// 100 ms for 20'000), so its failure comes after a small kernel's started at the same time.
tack::Kernel slow_to_fail(const std::string& name, int statements) {
  return tack::kernel(name, [statements](Array y) {
    parallel_for(y.size(), [&](Index i) {
      Var v = y[i];
      for (int j = 0; j < statements; ++j) v = v * 1.0001f + 0.5f;
      y[i] = v & 1;  // f32 & int: refused at the end
    });
  });
}

struct PrecompileOnCpu : ::testing::Test {};

TEST_F(PrecompileOnCpu, APrecompiledVariantIsTheOneTheCallRuns) {
  tack::Device cpu = tack::device("cpu");
  tack::Kernel k = scale(100);
  const auto compiled = tack::backends::cpu::Jit::compile_count();
  k.precompile(cpu, tack::ArraySpec{DType::F32, 1}, tack::ScalarSpec{DType::F32});
  EXPECT_EQ(tack::backends::cpu::Jit::compile_count(), compiled + 1);
  tack::Array y = cpu.from_host(std::vector<float>{1, 2});
  k(y, 2.0f);
  EXPECT_EQ(tack::backends::cpu::Jit::compile_count(), compiled + 1) << "the call compiled again";
  EXPECT_EQ(y.to_host<float>(), (std::vector<float>{102, 104}));
  k(y, 2.0);  // an f64 scalar: another variant
  EXPECT_EQ(tack::backends::cpu::Jit::compile_count(), compiled + 2);
}

TEST_F(PrecompileOnCpu, ManyKernelsCompileInParallelAndAreCounted) {
  tack::Device cpu = tack::device("cpu");
  std::vector<tack::Kernel> kernels;
  std::vector<tack::PrecompileRequest> requests;
  for (int k = 0; k < 8; ++k) kernels.push_back(scale(k));
  for (const auto& k : kernels) requests.push_back({k, {tack::ArraySpec{DType::F32, 1}, tack::KernelArg(1.0f)}});
  tack::reset_compile_stats();
  const auto compiled = tack::backends::cpu::Jit::compile_count();
  {
    SpecializingThreads threads;
    tack::precompile(cpu, requests, 2);
    EXPECT_EQ(threads.count(), 2u) << "the variants were not made by the two workers asked for";
  }
  EXPECT_EQ(tack::backends::cpu::Jit::compile_count(), compiled + 8);
  const tack::CompileStats s = tack::compile_stats();
  EXPECT_EQ(s.variants, 8u);
  EXPECT_EQ(s.disk_hits, 0u);  // new IR: nothing to find on disk
  EXPECT_GT(s.compile_ms, 0.0);
  EXPECT_GT(s.codegen_ms, 0.0);
  EXPECT_GT(s.trace_ms, 0.0);
  for (int k = 0; k < 8; ++k) {
    tack::Array y = cpu.from_host(std::vector<float>{1});
    kernels[static_cast<std::size_t>(k)](y, 1.0f);
    EXPECT_EQ(y.to_host<float>()[0], 1.0f + static_cast<float>(k));
  }
  EXPECT_EQ(tack::backends::cpu::Jit::compile_count(), compiled + 8) << "a call compiled what precompile made";
}

TEST_F(PrecompileOnCpu, FailuresComeBackInRequestOrderAfterEveryRequestWasTried) {
  tack::Device cpu = tack::device("cpu");
  auto bad = tack::kernel("bad_bits", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] & 1; }); });
  tack::Kernel good = scale(200);
  std::vector<tack::PrecompileRequest> requests = {
      {tack::Kernel(), {}},
      {bad, {tack::ArraySpec{DType::F32, 1}}},
      {good, {tack::ArraySpec{DType::F32, 1}, tack::KernelArg(1.0f)}},
  };
  const auto compiled = tack::backends::cpu::Jit::compile_count();
  try {
    tack::precompile(cpu, requests, 2);
    FAIL() << "no error";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("precompile request 0: an empty tack::Kernel"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tack::backends::cpu::Jit::compile_count(), compiled + 1) << "the good request was not compiled";
  requests.erase(requests.begin());
  EXPECT_THROW(tack::precompile(cpu, requests), tack::TypeError);
}

// Two failures that complete out of request order, on two workers: request 0 is slow to fail, request 1 fails at
// once. The error thrown is still request 0's.
TEST_F(PrecompileOnCpu, FailuresComeBackInRequestOrderWhenTheyCompleteOutOfOrder) {
  tack::Device cpu = tack::device("cpu");
  auto fast = tack::kernel("fast_to_fail", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] & 1; }); });
  const std::vector<tack::PrecompileRequest> requests = {
      {slow_to_fail("slow_to_fail", 20'000), {tack::ArraySpec{DType::F32, 1}}},
      {fast, {tack::ArraySpec{DType::F32, 1}}},
  };
  try {
    tack::precompile(cpu, requests, 2);
    FAIL() << "no error";
  } catch (const tack::TypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("kernel 'slow_to_fail'"), std::string::npos) << "not request 0's error: " << m;
  }
}

TEST(Precompile, BadDevicesAndThreadCounts) {
  tack::Kernel k = scale(300);
  EXPECT_THROW(k.precompile(tack::Device(), tack::ArraySpec{}, 1.0f), tack::InvalidArgument);
  EXPECT_THROW(tack::Kernel().precompile(tack::device("cpu")), tack::InvalidArgument);
  EXPECT_THROW(tack::precompile(tack::device("cpu"), {}, -1), tack::InvalidArgument);
  EXPECT_THROW(k.precompile(tack::device("cpu"), tack::ArraySpec{DType::F32, 5}, 1.0f), tack::InvalidArgument);
  EXPECT_THROW(k.precompile(tack::device("cpu"), 1.0f, 1.0f), tack::TypeError);  // a scalar for the array
}

// The logging run happens in a child, whose stderr goes to a file.
TEST(CompileLog, TackLogCompilePrintsOneLinePerVariant) {
  const std::filesystem::path log = std::filesystem::temp_directory_path() / ("tack_log_" + std::to_string(getpid()));
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TACK_LOG", "cache,compile", 1);
    if (!std::freopen(log.c_str(), "w", stderr)) std::_Exit(2);
    try {
      tack::Kernel k = scale(400);
      tack::Array y = tack::device("cpu").from_host(std::vector<float>{1});
      k(y, 1.0f);
      k(y, 1.0f);  // found in memory: no second line
      k(y, 1.0);
    } catch (...) {
      std::_Exit(3);
    }
    std::fflush(stderr);  // _Exit flushes nothing
    std::_Exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(log);
  const std::string s = text.str();
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = s.find("tack: kernel 'scale_400_", at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 2u) << s;
  EXPECT_NE(s.find(" compile "), std::string::npos) << s;
  EXPECT_TRUE(s.find("no disk cache") != std::string::npos || s.find("disk cache miss") != std::string::npos) << s;
  EXPECT_EQ(s.find("disk cache hit"), std::string::npos) << s;
}

}  // namespace
