// The CPU backend with its disk cache, end to end. Each run happens in a forked
// child, as a new process would: it configures the cache from the environment,
// compiles or loads a kernel, checks every result, and reports through its exit
// code. Damaged cache files must still give correct results and the right warning,
// and so must the faults of issue 18: two writers of one key inside the write
// window at once, a writer killed half-way through its file, a directory another
// process filled to the size cap.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/cpu/jit.hpp"
#include "runtime/cache/disk_cache.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using namespace tack::lang;

namespace {

enum Exit { kOk = 0, kWrongResult = 10, kNoWarning = 11, kCompiled = 12, kNotCompiled = 13, kThrew = 14 };

struct Expect {
  bool compiles;        // whether the run must compile (a miss) or load (a hit)
  std::string warning;  // a text one warning must contain, or "" for no warning at all
};

// Runs saxpy on the CPU in a child process with the given cache directory;
// `setup`, if given, runs in the child first. The exit code, or 100 + the
// signal that ended the child.
int run_child(const fs::path& dir, const Expect& expect, const std::function<void()>& setup = {}) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    ::setenv("TACK_CACHE_DIR", dir.c_str(), 1);
    ::unsetenv("TACK_CACHE");
    if (setup) setup();
    // Another test in this process (one process runs them all under the sanitizers) may have made the
    // process's cache from another environment before the fork.
    tack::runtime::DiskCache::reconfigure_global_for_tests();
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
      bool compiled = tack::backends::cpu::Jit::compile_count() > 0;
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

// Whether a cache file is a front-index entry (test_cpu_front_index.cpp tests those): its payload starts so.
bool is_front_entry(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return bytes.find("tack-front-1\n") != std::string::npos;
}

// A CPU variant is two files: its object code by its typed key, and its front entry.
constexpr std::size_t kFilesPerVariant = 2;

// Temporary files of writers in flight (or killed): "<entry>.tmp.<pid>.<tid>.<n>".
std::vector<fs::path> temp_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tack.tmp.") != std::string::npos) out.push_back(e.path());
  return out;
}

std::uint64_t total_bytes(const std::vector<fs::path>& files) {
  std::uint64_t n = 0;
  for (const auto& f : files) n += fs::file_size(f);
  return n;
}

// Two pipes making a rendezvous of writer processes with the test: each writer,
// between writing its temporary file and renaming it, says it arrived and waits
// for the test's go (runtime::disk_cache_before_rename_for_tests).
struct Rendezvous {
  int arrived[2] = {-1, -1};
  int go[2] = {-1, -1};
};
Rendezvous g_rendezvous;  // set before the fork; what the children's hook uses

// Only at a writer's first store, its variant's object entry: its front entry follows unhindered.
void arrive_and_wait(const std::string&) {
  static bool arrived = false;
  if (std::exchange(arrived, true)) return;
  char c = 'a';
  (void)!::write(g_rendezvous.arrived[1], &c, 1);
  (void)!::read(g_rendezvous.go[0], &c, 1);  // the go byte, or EOF if the test is gone
}

// Reads `count` arrival bytes within `seconds`; returns how many came.
int wait_arrivals(int fd, int count, int seconds) {
  int got = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (got < count) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    struct pollfd p {
      fd, POLLIN, 0
    };
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char c;
    if (::read(fd, &c, 1) != 1) break;  // every writer end closed: a child died
    ++got;
  }
  return got;
}

class CpuCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tack-cpu-cache-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A cold run, leaving one variant's files: returns its object entry, with the front entry removed where
  // `drop_front`, so that the next process reads the object entry (which the damage tests damage).
  fs::path warm(bool drop_front = true) {
    EXPECT_EQ(run_child(dir_, {true, ""}), kOk);
    auto files = cache_files(dir_);
    EXPECT_EQ(files.size(), kFilesPerVariant);
    fs::path object;
    for (const fs::path& f : files) {
      if (!is_front_entry(f))
        object = f;
      else if (drop_front)
        fs::remove(f);
    }
    EXPECT_FALSE(object.empty());
    return object;
  }
  fs::path dir_;
};

TEST_F(CpuCache, HitInANewProcessLoadsWithoutCompiling) {
  warm(false);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk);
  for (const fs::path& f : cache_files(dir_))
    if (is_front_entry(f)) fs::remove(f);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk) << "the object entry alone";
  EXPECT_EQ(cache_files(dir_).size(), kFilesPerVariant) << "the front entry was written again";
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

// Both writers are held between writing their temporary files and renaming
// them until both are there, so the two writes of one key really overlap; then
// both rename. Both compiled (neither saw the other's entry), one valid entry
// remains, and no temporary file.
TEST_F(CpuCache, TwoProcessesWritingOneKeyAtOnce) {
  ASSERT_EQ(::pipe(g_rendezvous.arrived), 0);
  ASSERT_EQ(::pipe(g_rendezvous.go), 0);
  std::fflush(nullptr);
  std::vector<pid_t> kids;
  for (int k = 0; k < 2; ++k) {
    pid_t pid = fork();
    if (pid == 0)
      _exit(run_child(dir_, {true, ""}, [] {
        // Only the test writes the go bytes: with no other write end open here, a read sees EOF once it is gone.
        ::close(g_rendezvous.go[1]);
        ::close(g_rendezvous.arrived[0]);
        tack::runtime::disk_cache_before_rename_for_tests = arrive_and_wait;
      }));
    kids.push_back(pid);
  }
  ::close(g_rendezvous.arrived[1]);
  ::close(g_rendezvous.go[0]);
  const int arrived = wait_arrivals(g_rendezvous.arrived[0], 2, 120);
  EXPECT_EQ(arrived, 2) << "both writers should reach the rename within 120 s";
  if (arrived == 2) {
    EXPECT_EQ(temp_files(dir_).size(), 2u) << "two temporary files of one key at once";
    EXPECT_EQ(cache_files(dir_).size(), 0u) << "neither renamed yet";
  }
  const char go[2] = {'g', 'g'};
  (void)!::write(g_rendezvous.go[1], go, 2);
  ::close(g_rendezvous.go[1]);
  ::close(g_rendezvous.arrived[0]);
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == kOk) << "status " << status;
  }
  EXPECT_EQ(cache_files(dir_).size(), kFilesPerVariant);
  EXPECT_TRUE(temp_files(dir_).empty());
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk);
}

// A process killed half-way through writing its cache file (here by the kernel:
// a 64-byte file size limit raises SIGXFSZ at the write that passes it) leaves
// a torn temporary file and no entry. The next process compiles, gets correct
// results without a warning, and leaves a valid entry.
TEST_F(CpuCache, WriterKilledHalfWayThroughItsFileLeavesNoEntry) {
  const int status = run_child(dir_, {true, ""}, [] {
    // Only the cache file may meet the limit: not the test log, if stdout or stderr is a file.
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    // A library the parent loaded earlier in the process (the GPU compilers) may have
    // blocked or ignored SIGXFSZ, and the child inherits both: the write would then
    // fail with EFBIG and the store clean up, instead of dying half-way.
    sigset_t xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    ::pthread_sigmask(SIG_UNBLOCK, &xfsz, nullptr);
    ::signal(SIGXFSZ, SIG_DFL);
    struct rlimit none {
      0, 0
    };
    ::setrlimit(RLIMIT_CORE, &none);  // no core file from the kill
    struct rlimit small {
      64, 64
    };
    ::setrlimit(RLIMIT_FSIZE, &small);
  });
  ASSERT_EQ(status, 100 + SIGXFSZ) << "the child should die writing the cache file";
  EXPECT_TRUE(cache_files(dir_).empty()) << "a torn file must never be an entry";
  const auto torn = temp_files(dir_);
  ASSERT_EQ(torn.size(), 1u);
  EXPECT_EQ(fs::file_size(torn[0]), 64u) << "the write stopped at the limit";
  EXPECT_EQ(run_child(dir_, {true, ""}), kOk);
  EXPECT_EQ(cache_files(dir_).size(), kFilesPerVariant);
  EXPECT_EQ(run_child(dir_, {false, ""}), kOk) << "the rebuilt entry is a hit";
}

// Another process has filled the directory to its size cap
// (TACK_CACHE_MAX_BYTES) with entries of its own. This process still compiles
// and runs correctly, and its store evicts the least recently used entries:
// the directory ends under the cap, holding this process's entry.
TEST_F(CpuCache, DirectoryFilledToItsCapByAnotherProcess) {
  warm(false);
  const std::vector<fs::path> saxpy_files = cache_files(dir_);
  ASSERT_EQ(saxpy_files.size(), kFilesPerVariant);
  const std::uint64_t entry_bytes = total_bytes(saxpy_files);  // what this process will store again
  for (const fs::path& f : saxpy_files) fs::remove(f);
  constexpr int kFillers = 8;
  const std::uint64_t per_file = entry_bytes + 1000, cap = kFillers * per_file;
  // The other process: kFillers entries of per_file bytes each, cap bytes in all.
  std::fflush(nullptr);
  pid_t filler = fork();
  if (filler == 0) {
    tack::runtime::DiskCache other({true, dir_.string(), 0});
    for (int i = 0; i < kFillers; ++i) {
      const std::string key = "filler entry " + std::to_string(i);
      other.store(key, std::string(per_file - 32 - key.size(), 'f'));  // 32: the header around the key
    }
    _exit(0);
  }
  int filler_status = 0;
  waitpid(filler, &filler_status, 0);
  ASSERT_TRUE(WIFEXITED(filler_status) && WEXITSTATUS(filler_status) == 0);
  ASSERT_EQ(cache_files(dir_).size(), static_cast<std::size_t>(kFillers));
  ASSERT_EQ(total_bytes(cache_files(dir_)), cap) << "the directory is exactly at the cap";
  // Their last uses (mtimes, what LRU orders by), all a while before this process, in the reverse order of
  // their file names: an eviction by name (or by directory order) picks other entries than one by age.
  std::vector<fs::path> filler_by_age = cache_files(dir_);  // oldest use first
  std::sort(filler_by_age.begin(), filler_by_age.end(), std::greater<>());
  const auto now = fs::file_time_type::clock::now();
  for (std::size_t r = 0; r < filler_by_age.size(); ++r)
    fs::last_write_time(filler_by_age[r], now - std::chrono::minutes(60 - static_cast<int>(r)));

  auto capped = [cap] { ::setenv("TACK_CACHE_MAX_BYTES", std::to_string(cap).c_str(), 1); };
  EXPECT_EQ(run_child(dir_, {true, ""}, capped), kOk);
  const auto files = cache_files(dir_);
  EXPECT_LE(total_bytes(files), cap) << files.size() << " files";
  // The evicted entries are the least recently used: a run of the oldest fillers, every kept filler newer
  // than every evicted one.
  std::string kept_pattern;  // one letter per filler, oldest first: 'k' kept, 'e' evicted
  for (const fs::path& f : filler_by_age) kept_pattern += fs::exists(f) ? 'k' : 'e';
  const std::size_t evicted = kept_pattern.find('k') == std::string::npos ? kFillers : kept_pattern.find('k');
  EXPECT_GT(evicted, 0u) << "no filler entry was evicted";
  EXPECT_EQ(kept_pattern, std::string(evicted, 'e') + std::string(kFillers - evicted, 'k'))
      << "oldest use first ('e' evicted, 'k' kept): not the least recently used";
  EXPECT_EQ(files.size(), kFillers - evicted + kFilesPerVariant) << "the fillers kept and this process's entries";
  EXPECT_EQ(run_child(dir_, {false, ""}, capped), kOk) << "this process's entries were kept (they are the newest)";
  EXPECT_LE(total_bytes(cache_files(dir_)), cap);
}

TEST_F(CpuCache, UnwritableDirectoryFallsBackToMemory) {
  // A path through a regular file cannot be created, even by root.
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  EXPECT_EQ(run_child(dir_ / "file" / "cache", {true, "is not usable"}), kOk);
}

}  // namespace
