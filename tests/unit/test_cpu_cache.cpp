// The CPU backend with its disk cache, end to end. Each run happens in a forked
// child, as a new process would: it configures the cache from the environment,
// compiles or loads a kernel, checks every result, and reports through its exit
// code. Damaged cache files must still give correct results and the right warning.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/cpu/jit.hpp"
#include "runtime/warnings.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace tack::lang;

namespace {

enum Exit { kOk = 0, kWrongResult = 10, kNoWarning = 11, kCompiled = 12, kNotCompiled = 13, kThrew = 14 };

struct Expect {
  bool compiles;           // whether the run must compile (a miss) or load (a hit)
  std::string warning;     // a text one warning must contain, or "" for no warning at all
};

// Runs saxpy on the CPU in a child process with the given cache directory.
int run_child(const fs::path& dir, const Expect& expect) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    ::setenv("TACK_CACHE_DIR", dir.c_str(), 1);
    ::unsetenv("TACK_CACHE");
    std::vector<std::string> warnings;
    tack::runtime::set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
    int code = kOk;
    try {
      auto saxpy = tack::kernel("cache_saxpy", [](Array y, Array x, Scalar a) {
        parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
      });
      auto dev = tack::device("cpu");
      std::vector<float> hx(1000), hy(1000);
      for (int i = 0; i < 1000; ++i) hx[i] = static_cast<float>(i), hy[i] = static_cast<float>(2 * i);
      tack::Array x = dev.from_host(hx), y = dev.from_host(hy);
      saxpy(y, x, 0.5f);
      std::vector<float> out = y.to_host<float>();
      for (int i = 0; i < 1000; ++i)
        if (out[i] != 0.5f * hx[i] + hy[i]) code = kWrongResult;
      bool compiled = tack::runtime::cpu::Jit::compile_count() > 0;
      if (code == kOk && compiled != expect.compiles) code = expect.compiles ? kNotCompiled : kCompiled;
      bool warned = false;
      for (const auto& w : warnings) warned |= w.find(expect.warning) != std::string::npos;
      if (code == kOk && expect.warning.empty() && !warnings.empty()) code = kNoWarning;
      if (code == kOk && !expect.warning.empty() && !warned) code = kNoWarning;
      for (const auto& w : warnings) std::fprintf(stderr, "child warning: %s\n", w.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child threw: %s\n", e.what());
      code = kThrew;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

std::vector<fs::path> cache_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tack") out.push_back(e.path());
  return out;
}

class CpuCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tack-cpu-cache-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A cold run, leaving exactly one cache file.
  fs::path warm() {
    EXPECT_EQ(run_child(dir_, {true, ""}), kOk);
    auto files = cache_files(dir_);
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? fs::path() : files[0];
  }
  fs::path dir_;
};

TEST_F(CpuCache, HitInANewProcessLoadsWithoutCompiling) {
  warm();
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk);
}

TEST_F(CpuCache, TruncatedFileIsRebuiltWithAWarning) {
  fs::path f = warm();
  fs::resize_file(f, fs::file_size(f) / 2);
  EXPECT_EQ(run_child(dir_, {true, "truncated"}), kOk);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk) << "the rebuilt file is a hit";
}

TEST_F(CpuCache, FlippedPayloadByteIsRebuiltWithAWarning) {
  fs::path f = warm();
  {
    std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
    s.seekp(static_cast<std::streamoff>(fs::file_size(f) - 17));
    char c = 0;
    s.read(&c, 1);
    s.seekp(static_cast<std::streamoff>(fs::file_size(f) - 17));
    c = static_cast<char>(c ^ 0x40);
    s.write(&c, 1);
  }
  EXPECT_EQ(run_child(dir_, {true, "payload checksum mismatch"}), kOk);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk);
}

TEST_F(CpuCache, WrongFormatVersionIsRebuiltWithAWarning) {
  fs::path f = warm();
  {
    std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
    s.seekp(8);  // after the 8-byte magic: the little-endian u32 version
    const char v[4] = {99, 0, 0, 0};
    s.write(v, 4);
  }
  EXPECT_EQ(run_child(dir_, {true, "cache format version 99"}), kOk);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk);
}

TEST_F(CpuCache, TwoProcessesWritingOneKeyAtOnce) {
  std::fflush(nullptr);
  std::vector<pid_t> kids;
  for (int k = 0; k < 2; ++k) {
    pid_t pid = fork();
    if (pid == 0) _exit(run_child(dir_, {true, ""}));
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == kOk) << "status " << status;
  }
  EXPECT_EQ(cache_files(dir_).size(), 1u);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk);
}

TEST_F(CpuCache, UnwritableDirectoryFallsBackToMemory) {
  // A path through a regular file cannot be created, even by root.
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  EXPECT_EQ(run_child(dir_ / "file" / "cache", {true, "is not usable"}), kOk);
}

}  // namespace
