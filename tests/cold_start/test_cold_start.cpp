// A program whose kernels all come from the disk cache never loads LLVM: this
// executable links libtack alone (not the compiler plugin, not libLLVM), runs
// the same kernels in two child processes sharing an empty cache folder, and
// reads each child's /proc/self/maps. The first child compiles, so it loads
// libtack_llvm and libLLVM; the second hits the cache and must load neither,
// and both must compute the right values.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace tack::lang;
namespace fs = std::filesystem;

namespace {

enum Child { kRanWithoutLlvm = 20, kRanWithLlvm = 21, kWrongResult = 22, kThrew = 23 };

bool llvm_is_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libLLVM") != std::string::npos || line.find("libtack_llvm") != std::string::npos) return true;
  return false;
}

int run_program() {
  try {
    tack::Device dev = tack::device("cpu");
    auto saxpy = tack::kernel("cold_start_saxpy", [](Array y, Array x, Scalar a) {
      parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
    });
    auto stencil = tack::kernel("cold_start_stencil", [](Array out, Array in) {
      parallel_for(in.size() - 2, [&](Index i) { out[i + 1] = (in[i] + in[i + 1] + in[i + 2]) / 3.0f; });
    });
    tack::Array x = dev.from_host(std::vector<float>(37, 1.5f)), y = dev.from_host(std::vector<float>(37, 2.0f));
    saxpy(y, x, 3.0f);
    tack::Array out = dev.zeros(tack::DType::F32, {37});
    stencil(out, y);
    const std::vector<float> got = out.to_host<float>();
    if (y.to_host<float>()[5] != 6.5f || got[10] != 6.5f || got[0] != 0.0f) return kWrongResult;
    return llvm_is_mapped() ? kRanWithLlvm : kRanWithoutLlvm;
  } catch (...) {
    return kThrew;
  }
}

int in_child(const fs::path& cache) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    ::setenv("TACK_CACHE_DIR", cache.c_str(), 1);
    ::setenv("TACK_CACHE", "1", 1);
    std::_Exit(run_program());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(ColdStart, ACachedProgramNeverLoadsLlvm) {
  ASSERT_FALSE(llvm_is_mapped()) << "this test program must not link LLVM itself";
  char pattern[] = "/tmp/tack-cold-start-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path cache = pattern;
  EXPECT_EQ(in_child(cache), kRanWithLlvm) << "the first run compiles: it needs the compiler";
  EXPECT_EQ(in_child(cache), kRanWithoutLlvm) << "a cached run must not load libtack_llvm or libLLVM";
  EXPECT_EQ(in_child(cache), kRanWithoutLlvm);
  fs::remove_all(cache);
}

TEST(ColdStart, TheCompilerLoadsOnTheFirstCompileAndNotBefore) {
  char pattern[] = "/tmp/tack-cold-start-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path cache = pattern;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    ::setenv("TACK_CACHE_DIR", cache.c_str(), 1);
    tack::Device dev = tack::device("cpu");
    tack::Array a = dev.zeros(tack::DType::F32, {8});
    if (llvm_is_mapped()) std::_Exit(1);  // a device and its arrays need no compiler
    std::_Exit(run_program() == kRanWithLlvm ? 0 : 2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: LLVM was loaded before any compile; 2: not loaded by the compile";
  fs::remove_all(cache);
}

}  // namespace
