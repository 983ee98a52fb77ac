// The on-disk artifact cache: round trips, every corruption detected and
// removed with a warning, atomic concurrent writes, degradation on unusable
// directories, LRU eviction, and configuration from the environment.
#include <gtest/gtest.h>

#include "runtime/cache/disk_cache.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

namespace fs = std::filesystem;
using tack::runtime::DiskCache;
using tack::runtime::DiskCacheConfig;

namespace {

// Collects warnings instead of printing them, for the test's lifetime.
class WarningCapture {
 public:
  WarningCapture() {
    tack::runtime::set_warning_handler([this](const std::string& m) {
      std::lock_guard<std::mutex> lock(mutex_);
      messages_.push_back(m);
    });
  }
  ~WarningCapture() { tack::runtime::set_warning_handler(nullptr); }
  std::vector<std::string> messages() {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }
  std::size_t count() { return messages().size(); }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
};

// Sets (or unsets, with nullptr) environment variables and restores them.
class EnvGuard {
 public:
  void set(const char* name, const char* value) {
    if (std::find_if(saved_.begin(), saved_.end(), [&](const auto& s) { return s.first == name; }) == saved_.end()) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    }
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tack-disk-cache-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir_ = root_ + "/cache";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }
  DiskCacheConfig config(std::uint64_t max_bytes = DiskCache::kDefaultMaxBytes) const {
    return DiskCacheConfig{true, dir_, max_bytes};
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string root_;  // this test's own temporary directory
  std::string dir_;   // the cache directory inside it (created by the first store)
  WarningCapture warnings_;
};

const std::string kKey = "cpu;llvm=19.1.7;cpu=znver4;+avx2,+fma;format=1|ir=0123456789abcdef|sig=f32[1],f32|opt=O3";

// Header size of an entry for `key`: magic 8, version 4, key length 4, key, payload size 8, checksum 8.
std::size_t header_size(const std::string& key) { return 32 + key.size(); }

TEST_F(DiskCacheTest, RoundTrip) {
  DiskCache cache(config());
  const std::string payload = random_bytes(10000, 1) + std::string("\0embedded nul\0", 14);
  cache.store(kKey, payload);
  EXPECT_EQ(cache.load(kKey), payload);
  EXPECT_EQ(cache.load(kKey), payload);  // loading does not consume

  cache.store(kKey, "replaced");  // a store replaces the entry
  EXPECT_EQ(cache.load(kKey), "replaced");
  cache.store("empty payload", "");
  EXPECT_EQ(cache.load("empty payload"), std::string());

  // A new DiskCache on the same directory (a new process, in effect) sees the entries.
  DiskCache again(config());
  EXPECT_EQ(again.load(kKey), "replaced");
  EXPECT_EQ(warnings_.count(), 0u);
  // One file per entry, named <32 hex>.v<version>.tack, and no temporary left behind.
  auto names = files();
  ASSERT_EQ(names.size(), 2u);
  for (const auto& n : names) {
    EXPECT_EQ(n.size(), 32 + std::string(".v1.tack").size()) << n;
    EXPECT_TRUE(n.ends_with(".v" + std::to_string(DiskCache::kFormatVersion) + ".tack")) << n;
  }
  EXPECT_EQ(fs::path(cache.path_for(kKey)).parent_path().string(), dir_);
}

TEST_F(DiskCacheTest, MissWithoutWarning) {
  DiskCache cache(config());
  EXPECT_EQ(cache.load(kKey), std::nullopt);  // no directory yet
  EXPECT_FALSE(fs::exists(dir_));             // a load never creates it
  cache.store("other key", "x");
  EXPECT_EQ(cache.load(kKey), std::nullopt);
  EXPECT_EQ(cache.load(kKey + " "), std::nullopt);
  EXPECT_EQ(warnings_.count(), 0u);
}

TEST_F(DiskCacheTest, TruncatedFileIsRemovedAndRebuilt) {
  const std::string payload = random_bytes(4096, 2);
  const std::size_t full = header_size(kKey) + payload.size();
  // Cut inside the magic, the version, the key, the size fields, and one byte short of the end.
  for (std::size_t length : {std::size_t{0}, std::size_t{5}, std::size_t{10}, std::size_t{20}, header_size(kKey) - 3,
                             full - payload.size() / 2, full - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(length));
    warnings_.clear();
    DiskCache cache(config());
    cache.store(kKey, payload);
    const std::string path = cache.path_for(kKey);
    ASSERT_EQ(read_file(path).size(), full);
    fs::resize_file(path, length);

    EXPECT_EQ(cache.load(kKey), std::nullopt);
    auto w = warnings_.messages();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(contains(w[0], path)) << w[0];
    EXPECT_TRUE(contains(w[0], "truncated")) << w[0];
    EXPECT_FALSE(fs::exists(path));
    EXPECT_EQ(cache.load(kKey), std::nullopt);  // now a plain miss
    EXPECT_EQ(warnings_.count(), 1u);

    cache.store(kKey, payload);  // the caller rebuilds and stores again
    EXPECT_EQ(cache.load(kKey), payload);
    EXPECT_EQ(warnings_.count(), 1u);
  }
}

TEST_F(DiskCacheTest, FlippedPayloadByteFailsTheChecksum) {
  DiskCache cache(config());
  const std::string payload = random_bytes(3000, 3);
  for (std::size_t at : {std::size_t{0}, std::size_t{1234}, payload.size() - 1}) {
    warnings_.clear();
    cache.store(kKey, payload);
    const std::string path = cache.path_for(kKey);
    std::string bytes = read_file(path);
    bytes[header_size(kKey) + at] ^= 0x01;
    write_file(path, bytes);

    EXPECT_EQ(cache.load(kKey), std::nullopt);
    auto w = warnings_.messages();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(contains(w[0], path)) << w[0];
    EXPECT_TRUE(contains(w[0], "checksum")) << w[0];
    EXPECT_FALSE(fs::exists(path));
  }
}

TEST_F(DiskCacheTest, EveryFlippedHeaderByteIsDetected) {
  DiskCache cache(config());
  const std::string payload = random_bytes(500, 4);
  for (std::size_t at = 0; at < header_size(kKey); ++at) {
    SCOPED_TRACE("flipped header byte " + std::to_string(at));
    warnings_.clear();
    cache.store(kKey, payload);
    const std::string path = cache.path_for(kKey);
    std::string bytes = read_file(path);
    bytes[at] ^= 0x10;
    write_file(path, bytes);

    EXPECT_EQ(cache.load(kKey), std::nullopt);
    auto w = warnings_.messages();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(contains(w[0], path)) << w[0];
    EXPECT_FALSE(fs::exists(path));
  }
  // The reasons name the field: magic, version, key, size, checksum.
  auto reason_for = [&](std::size_t at) {
    warnings_.clear();
    cache.store(kKey, payload);
    std::string bytes = read_file(cache.path_for(kKey));
    bytes[at] ^= 0x10;
    write_file(cache.path_for(kKey), bytes);
    cache.load(kKey);
    auto w = warnings_.messages();
    return w.empty() ? std::string() : w[0];
  };
  EXPECT_TRUE(contains(reason_for(0), "bad magic"));
  EXPECT_TRUE(contains(reason_for(8), "version"));
  EXPECT_TRUE(contains(reason_for(12), "key mismatch"));
  EXPECT_TRUE(contains(reason_for(16 + 3), "key mismatch"));
  EXPECT_TRUE(contains(reason_for(16 + kKey.size()), "size mismatch"));
  EXPECT_TRUE(contains(reason_for(16 + kKey.size() + 8), "checksum"));
}

TEST_F(DiskCacheTest, WrongFormatVersionIsRemoved) {
  DiskCache cache(config());
  cache.store(kKey, "payload");
  const std::string path = cache.path_for(kKey);
  std::string bytes = read_file(path);
  const std::uint32_t other = DiskCache::kFormatVersion + 1;
  for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<char>((other >> (8 * i)) & 0xff);
  write_file(path, bytes);

  EXPECT_EQ(cache.load(kKey), std::nullopt);
  auto w = warnings_.messages();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], path)) << w[0];
  EXPECT_TRUE(contains(w[0], "format version " + std::to_string(other))) << w[0];
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(DiskCacheTest, AnotherKeysFileUnderTheSameNameIsAMiss) {
  // A hash collision, simulated: a valid file for key A under key B's name.
  DiskCache cache(config());
  const std::string a = kKey + "|A", b = kKey + "|B", b_long = kKey + "|B-with-a-longer-key";
  cache.store(a, "payload of A");
  for (const std::string& key : {b, b_long}) {
    SCOPED_TRACE(key);
    warnings_.clear();
    fs::copy_file(cache.path_for(a), cache.path_for(key));
    EXPECT_EQ(cache.load(key), std::nullopt);
    auto w = warnings_.messages();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(contains(w[0], cache.path_for(key))) << w[0];
    EXPECT_TRUE(contains(w[0], "key mismatch")) << w[0];
    EXPECT_FALSE(fs::exists(cache.path_for(key)));
    cache.store(key, "payload of B");
    EXPECT_EQ(cache.load(key), "payload of B");
  }
  EXPECT_EQ(cache.load(a), "payload of A");  // A's own file is untouched
}

TEST_F(DiskCacheTest, TrailingBytesAreASizeMismatch) {
  DiskCache cache(config());
  cache.store(kKey, "payload");
  const std::string path = cache.path_for(kKey);
  write_file(path, read_file(path) + "junk");
  EXPECT_EQ(cache.load(kKey), std::nullopt);
  auto w = warnings_.messages();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], "size mismatch")) << w[0];
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(DiskCacheTest, TwoProcessesStoreTheSameKeyWhileAThirdLoads) {
  const std::string payload = random_bytes(256 * 1024, 5);
  // Shared between the processes: writers finished, and the reader's counts.
  struct Shared {
    std::atomic<int> writers_done;
    std::atomic<long> hits, misses;
  };
  void* mem = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  Shared* shared = new (mem) Shared{};
  std::fflush(nullptr);

  auto child = [&](bool writer) -> pid_t {
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    ::alarm(120);
    int status = 0;
    {
      std::atomic<int> warnings{0};
      tack::runtime::set_warning_handler([&](const std::string&) { ++warnings; });
      DiskCache cache(config());
      if (writer) {
        for (int i = 0; i < 200; ++i) cache.store(kKey, payload);
        ++shared->writers_done;
      } else {
        for (long n = 0; shared->writers_done.load() < 2 || n < 200; ++n) {
          auto got = cache.load(kKey);
          if (!got) {
            ++shared->misses;
          } else if (*got == payload) {
            ++shared->hits;
          } else {
            status = 2;  // a wrong payload: the one thing that must never happen
          }
        }
      }
      if (warnings.load() != 0) status = status ? status : 3;
    }
    ::_exit(status);
  };
  pid_t reader = child(false), w1 = child(true), w2 = child(true);
  for (pid_t pid : {w1, w2, reader}) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " did not exit normally";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "2: a load returned a wrong payload, 3: a warning";
  }
  EXPECT_GT(shared->hits.load(), 0);
  ::munmap(mem, sizeof(Shared));

  // One valid file, no temporary files left behind.
  EXPECT_EQ(files().size(), 1u);
  DiskCache cache(config());
  EXPECT_EQ(cache.load(kKey), payload);
  EXPECT_EQ(warnings_.count(), 0u);
}

// Four threads load and store four keys on one DiskCache; returns the number of wrong payloads.
int hammer(DiskCache& cache, const std::vector<std::string>& payloads) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const unsigned k = static_cast<unsigned>(i + t) % 4;
        const std::string key = "key " + std::to_string(k);
        if (i % 3 == 0) cache.store(key, payloads[k]);
        auto got = cache.load(key);
        if (got && *got != payloads[k]) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  return wrong.load();
}

TEST_F(DiskCacheTest, ThreadsLoadAndStoreAtOnce) {
  std::vector<std::string> payloads;
  for (unsigned i = 0; i < 4; ++i) payloads.push_back(random_bytes(20000 + i, 10 + i));
  DiskCache cache(config());
  EXPECT_EQ(hammer(cache, payloads), 0);
  EXPECT_EQ(files().size(), 4u);
  // Again with a cap of two and a half entries: evictions run while other threads load and store.
  DiskCache small(config(50000));
  EXPECT_EQ(hammer(small, payloads), 0);
  EXPECT_LE(files().size(), 3u);
  EXPECT_EQ(warnings_.count(), 0u);
}

// Many stores and loads against an unusable directory: one warning, misses, no throw.
void expect_degrades_once(DiskCache& cache, WarningCapture& warnings, const std::string& dir) {
  for (int i = 0; i < 50; ++i) {
    EXPECT_NO_THROW(cache.store("key " + std::to_string(i), "payload"));
    EXPECT_EQ(cache.load("key " + std::to_string(i)), std::nullopt);
  }
  auto w = warnings.messages();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], dir)) << w[0];
  EXPECT_TRUE(contains(w[0], "memory only")) << w[0];
  EXPECT_FALSE(cache.enabled());
}

TEST_F(DiskCacheTest, ReadOnlyDirectoryDegradesToMemoryWithOneWarning) {
  std::string dir = dir_;
  if (::geteuid() == 0) {
    // Root writes through permission bits; a path under a regular file fails for root too.
    std::printf("[   NOTE   ] running as root: chmod 0555 would not stop writes, using a path under a regular file\n");
    write_file(root_ + "/a-file", "not a directory");
    dir = root_ + "/a-file/cache";
  } else {
    fs::create_directories(dir_);
    DiskCache writable(config());
    writable.store("key 0", "payload");  // an existing entry: a degraded cache does not read it either
    ASSERT_EQ(writable.load("key 0"), "payload");
    fs::permissions(dir_, fs::perms(0555));
  }
  DiskCache cache(DiskCacheConfig{true, dir, DiskCache::kDefaultMaxBytes});
  EXPECT_TRUE(cache.enabled());
  expect_degrades_once(cache, warnings_, dir);
}

TEST_F(DiskCacheTest, PathUnderARegularFileDegradesToMemoryWithOneWarning) {
  write_file(root_ + "/a-file", "not a directory");
  const std::string dir = root_ + "/a-file/cache";
  DiskCache cache(DiskCacheConfig{true, dir, DiskCache::kDefaultMaxBytes});
  expect_degrades_once(cache, warnings_, dir);
  EXPECT_EQ(read_file(root_ + "/a-file"), "not a directory");
}

TEST_F(DiskCacheTest, DirectoryRemovedMidRunIsRecreated) {
  DiskCache cache(config());
  cache.store("a", "payload a");
  ASSERT_EQ(cache.load("a"), "payload a");
  fs::remove_all(dir_);
  EXPECT_EQ(cache.load("a"), std::nullopt);
  cache.store("b", "payload b");
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_EQ(cache.load("b"), "payload b");
  EXPECT_TRUE(cache.enabled());
  EXPECT_EQ(warnings_.count(), 0u);
}

TEST_F(DiskCacheTest, FailedWritesWarnOnceAndDoNotThrow) {
  // A child process with a 4 KiB file size limit: every larger write fails (EFBIG),
  // like a full disk.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::alarm(60);
    int status = 0;
    {
      std::atomic<int> warnings{0};
      tack::runtime::set_warning_handler([&](const std::string&) { ++warnings; });
      std::signal(SIGXFSZ, SIG_IGN);
      struct rlimit limit = {4096, 4096};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      DiskCache cache(config());
      const std::string big(16384, 'x');
      for (int i = 0; i < 10; ++i) {
        try {
          cache.store("big " + std::to_string(i), big);
        } catch (...) {
          status = 2;
        }
        if (cache.load("big " + std::to_string(i))) status = 3;
      }
      if (warnings.load() != 1) status = 4;
      cache.store("small", "fits");  // the cache keeps working for what fits
      if (cache.load("small") != std::optional<std::string>("fits")) status = 5;
      for (const auto& e : fs::directory_iterator(dir_))
        if (e.path().filename() != fs::path(cache.path_for("small")).filename()) status = 6;  // a leftover
    }
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: threw, 3: a failed store loads, 4: not exactly one warning, "
                                       "5: a later store failed, 6: a temporary file was left behind";
}

// Sets a file's mtime to `seconds_ago` in the past.
void age(const std::string& path, int seconds_ago) {
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds_ago;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST_F(DiskCacheTest, LruEvictionKeepsRecentlyLoadedEntries) {
  const std::string payload = random_bytes(1000, 6);
  auto key = [](int i) { return "key " + std::to_string(10 + i); };  // all the same length
  const std::uint64_t entry = header_size(key(0)) + payload.size();
  DiskCache cache(config(10 * entry + entry / 2));  // room for ten entries

  for (int i = 0; i < 10; ++i) cache.store(key(i), payload);
  ASSERT_EQ(files().size(), 10u);  // under the cap: nothing evicted
  // Distinct, old mtimes (key 0 the oldest), independent of the clock's granularity.
  for (int i = 0; i < 10; ++i) age(cache.path_for(key(i)), 1000 - i);
  ASSERT_EQ(cache.load(key(0)), payload);  // used: now the most recent
  ASSERT_EQ(cache.load(key(1)), payload);

  cache.store(key(10), payload);  // 11 entries > cap: evict down to 90% of it (9 entries)
  EXPECT_EQ(files().size(), 9u);
  EXPECT_EQ(cache.load(key(0)), payload);
  EXPECT_EQ(cache.load(key(1)), payload);
  EXPECT_EQ(cache.load(key(2)), std::nullopt);  // the two least recently used
  EXPECT_EQ(cache.load(key(3)), std::nullopt);
  for (int i = 4; i <= 10; ++i) EXPECT_EQ(cache.load(key(i)), payload) << key(i);
  EXPECT_EQ(warnings_.count(), 0u);
}

TEST_F(DiskCacheTest, EvictionRemovesOnlyFilesTheCacheMade) {
  fs::create_directories(dir_);
  DiskCache probe(config());
  const std::string ours = fs::path(probe.path_for("x")).filename().string();
  const std::vector<std::string> foreign = {"notes.txt", ours + ".bak", "0123.v1.tack", ours.substr(1) + "0",
                                            ours + ".tmp.1.2"};
  for (const auto& name : foreign) write_file(dir_ + "/" + name, std::string(5000, 'f'));
  const std::string stale_temp = ours + ".tmp.1.2.3", fresh_temp = ours + ".tmp.4.5.6";
  write_file(dir_ + "/" + stale_temp, "a crashed writer's leftover");
  write_file(dir_ + "/" + fresh_temp, "a writer in flight");
  age(dir_ + "/" + stale_temp, 2 * 3600);

  DiskCache cache(config(3000));  // the foreign files alone exceed the cap; they do not count
  cache.store("a", std::string(1000, 'a'));
  cache.store("b", std::string(1000, 'b'));
  age(cache.path_for("a"), 100);
  age(cache.path_for("b"), 50);
  cache.store("c", std::string(1000, 'c'));  // over the cap: evicts our own entries only, the oldest first
  EXPECT_EQ(cache.load("a"), std::nullopt);
  EXPECT_EQ(cache.load("b"), std::string(1000, 'b'));
  for (const auto& name : foreign) EXPECT_TRUE(fs::exists(dir_ + "/" + name)) << name;
  EXPECT_TRUE(fs::exists(dir_ + "/" + fresh_temp));
  EXPECT_FALSE(fs::exists(dir_ + "/" + stale_temp));
  EXPECT_EQ(cache.load("c"), std::string(1000, 'c'));
}

TEST_F(DiskCacheTest, TackCacheZeroDisables) {
  for (const char* off : {"0", "false", "No", "OFF"}) {
    SCOPED_TRACE(off);
    EnvGuard env;
    env.set("TACK_CACHE", off);
    env.set("TACK_CACHE_DIR", dir_.c_str());
    DiskCacheConfig cfg = tack::runtime::disk_cache_config_from_env();
    EXPECT_FALSE(cfg.enabled);
    DiskCache cache(cfg);
    EXPECT_FALSE(cache.enabled());
    cache.store(kKey, "payload");
    EXPECT_EQ(cache.load(kKey), std::nullopt);
    EXPECT_FALSE(fs::exists(dir_));
  }
  for (const char* on : {"1", "yes", ""}) {
    EnvGuard env;
    env.set("TACK_CACHE", on);
    EXPECT_TRUE(tack::runtime::disk_cache_config_from_env().enabled) << on;
  }
  EXPECT_EQ(warnings_.count(), 0u);
}

TEST_F(DiskCacheTest, DirectoryFromTheEnvironment) {
  EnvGuard env;
  env.set("TACK_CACHE", nullptr);
  env.set("TACK_CACHE_DIR", "/explicit/dir");
  env.set("XDG_CACHE_HOME", "/xdg");
  env.set("HOME", "/home/someone");
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().dir, "/explicit/dir");
  env.set("TACK_CACHE_DIR", nullptr);
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().dir, "/xdg/tack");
  env.set("XDG_CACHE_HOME", "relative/ignored");
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().dir, "/home/someone/.cache/tack");
  env.set("XDG_CACHE_HOME", "");
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().dir, "/home/someone/.cache/tack");
  EXPECT_TRUE(tack::runtime::disk_cache_config_from_env().enabled);
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().max_bytes, 1ull << 30);

  // A relative directory is made absolute once, so a later chdir does not move the cache.
  DiskCache cache(DiskCacheConfig{true, "rel/dir/", 1000});
  EXPECT_EQ(cache.dir(), (fs::current_path() / "rel/dir").string());
  EXPECT_EQ(warnings_.count(), 0u);
}

TEST_F(DiskCacheTest, MaxBytesFromTheEnvironment) {
  EnvGuard env;
  struct Case {
    const char* text;
    std::uint64_t bytes;  // 0: rejected, the default with a warning
  };
  const Case cases[] = {
      {"12345", 12345},
      {"64K", 64ull << 10},
      {"64k", 64ull << 10},
      {"3M", 3ull << 20},
      {"2G", 2ull << 30},
      {"2GiB", 2ull << 30},
      {"10MB", 10ull << 20},
      {" 7G ", 7ull << 30},
      {"100B", 100},
      // refused:
      {"abc", 0},
      {"10X", 0},
      {"-5", 0},
      {"1.5G", 0},
      {"0", 0},
      {"G", 0},
      {"99999999999999999999", 0},
      {"17179869184G", 0},
      {"5 M", 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    warnings_.clear();
    env.set("TACK_CACHE_MAX_BYTES", c.text);
    DiskCacheConfig cfg = tack::runtime::disk_cache_config_from_env();
    if (c.bytes) {
      EXPECT_EQ(cfg.max_bytes, c.bytes);
      EXPECT_EQ(tack::runtime::parse_byte_size(c.text), c.bytes);
      EXPECT_EQ(warnings_.count(), 0u);
    } else {
      EXPECT_EQ(cfg.max_bytes, DiskCache::kDefaultMaxBytes);
      EXPECT_EQ(tack::runtime::parse_byte_size(c.text), std::nullopt);
      auto w = warnings_.messages();
      ASSERT_EQ(w.size(), 1u);
      EXPECT_TRUE(contains(w[0], "TACK_CACHE_MAX_BYTES")) << w[0];
      EXPECT_TRUE(contains(w[0], c.text)) << w[0];
    }
  }
  warnings_.clear();
  env.set("TACK_CACHE_MAX_BYTES", "");  // empty is unset: the default, silently
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().max_bytes, DiskCache::kDefaultMaxBytes);
  env.set("TACK_CACHE_MAX_BYTES", nullptr);
  EXPECT_EQ(tack::runtime::disk_cache_config_from_env().max_bytes, DiskCache::kDefaultMaxBytes);
  EXPECT_EQ(warnings_.count(), 0u);
}

TEST(Warnings, GoToStderrWithPrefixOrToAHandler) {
  ::testing::internal::CaptureStderr();
  tack::runtime::warn("something odd");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "tack: warning: something odd\n");
  std::vector<std::string> got;
  tack::runtime::set_warning_handler([&](const std::string& m) { got.push_back(m); });
  tack::runtime::warn("captured");
  tack::runtime::set_warning_handler(nullptr);
  EXPECT_EQ(got, std::vector<std::string>{"captured"});
  ::testing::internal::CaptureStderr();
  tack::runtime::warn("back on stderr");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "tack: warning: back on stderr\n");
}

}  // namespace
