// The on-disk cache of compiled artifacts: checked reads, atomic writes, an LRU
// size cap. Everything that can fail degrades to a miss; nothing throws.
#include "runtime/cache/disk_cache.hpp"

#include "runtime/diagnostics/warnings.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <string_view>
#include <system_error>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tack::runtime {
namespace {

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'C', 'A', 'C', '\x1a'};
constexpr std::size_t kFixedHeader = 16;  // magic, format version, key length
constexpr std::size_t kSizeFields = 16;   // payload size, payload checksum
constexpr const char* kSuffix = ".tack";
constexpr std::time_t kStaleTempSeconds = 3600;  // no writer takes an hour between open and rename

// Process-wide, so two DiskCache objects on one directory never pick the same
// temporary name (O_EXCL would catch it anyway).
std::atomic<std::uint64_t> temp_counter{0};

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// Reads up to n bytes at `offset`; returns how many were read (short at end of
// file), or -1 on an error.
long long pread_all(int fd, char* buf, std::size_t n, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, buf + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return static_cast<long long>(done);
}

bool write_all(int fd, const char* buf, std::size_t n) {
  while (n > 0) {
    ssize_t r = ::write(fd, buf, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (r == 0) {  // no progress and no error: report it as a full disk
      errno = ENOSPC;
      return false;
    }
    buf += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<32 hex>.v<digits>.tack" (an entry) or that + ".tmp.<digits>.<digits>.<digits>"
// (a temporary file). Nothing else in the directory is ever touched.
bool is_cache_file_name(std::string_view name, bool& temp) {
  if (name.size() < 32 + 2 + 1 + 5) return false;
  for (std::size_t i = 0; i < 32; ++i) {
    char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  name.remove_prefix(32);
  if (name.substr(0, 2) != ".v") return false;
  name.remove_prefix(2);
  std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || !all_digits(name.substr(0, dot))) return false;
  name.remove_prefix(dot);
  if (name.substr(0, 5) != kSuffix) return false;
  name.remove_prefix(5);
  if (name.empty()) {
    temp = false;
    return true;
  }
  if (name.substr(0, 5) != ".tmp.") return false;
  name.remove_prefix(5);
  for (int part = 0; part < 3; ++part) {
    std::size_t end = part < 2 ? name.find('.') : name.size();
    if (end == std::string_view::npos || !all_digits(name.substr(0, end))) return false;
    name.remove_prefix(part < 2 ? end + 1 : end);
  }
  temp = true;
  return name.empty();
}

// Removes `path` only if it is still the file we read (a concurrent store may
// have renamed a fresh, valid file into place meanwhile).
void remove_if_same(const std::string& path, const struct stat& read) {
  struct stat now;
  if (::stat(path.c_str(), &now) == 0 && now.st_dev == read.st_dev && now.st_ino == read.st_ino) ::unlink(path.c_str());
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void (*disk_cache_before_rename_for_tests)(const std::string& temp_path) = nullptr;

DiskCache::DiskCache(DiskCacheConfig cfg) : cfg_(std::move(cfg)) {
  if (cfg_.dir.empty()) {
    cfg_.enabled = false;
    return;
  }
  cfg_.dir = absolute_cache_dir(cfg_.dir);
}

namespace {
DiskCache*& global_cache() {
  static DiskCache* cache = new DiskCache(disk_cache_config_from_env());  // never destroyed: usable at exit
  return cache;
}
}  // namespace

DiskCache& DiskCache::global() { return *global_cache(); }

void DiskCache::reconfigure_global_for_tests() {
  // The replaced caches stay (and stay reachable, for the leak checker): anything may still hold one.
  static auto* retired = new std::vector<DiskCache*>;
  retired->push_back(global_cache());
  global_cache() = new DiskCache(disk_cache_config_from_env());
}

bool DiskCache::enabled() const { return cfg_.enabled && !degraded_.load(std::memory_order_relaxed); }

const std::string& DiskCache::dir() const { return cfg_.dir; }

std::string DiskCache::path_for(std::string_view key) const {
  XXH128_canonical_t digest;
  XXH128_canonicalFromHash(&digest, XXH3_128bits(key.data(), key.size()));
  static constexpr char hex[] = "0123456789abcdef";
  std::string path = cfg_.dir;
  path.reserve(path.size() + 1 + 32 + 16);
  path.push_back('/');
  for (unsigned char b : digest.digest) {
    path.push_back(hex[b >> 4]);
    path.push_back(hex[b & 15]);
  }
  path += ".v" + std::to_string(kFormatVersion) + kSuffix;
  return path;
}

std::optional<std::string> DiskCache::load(std::string_view key) noexcept {
  try {
    return load_impl(key);
  } catch (...) {
    return std::nullopt;  // out of memory: a miss; the caller compiles
  }
}

void DiskCache::store(std::string_view key, std::string_view payload) noexcept {
  try {
    store_impl(key, payload);
  } catch (...) {
    // out of memory: the entry is simply not cached
  }
}

std::optional<std::string> DiskCache::load_impl(std::string_view key) {
  if (!enabled() || key.size() > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  const std::string path = path_for(key);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // ENOENT is the ordinary miss; other errors are misses too
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;  // not ours to remove
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);

  auto reject = [&](const std::string& reason) -> std::optional<std::string> {
    remove_if_same(path, st);
    warn("disk cache: removed '" + path + "': " + reason + "; the kernel is compiled again");
    return std::nullopt;
  };
  auto truncated = [&](std::uint64_t needed) {
    return reject("truncated (the file has " + std::to_string(size) + " bytes, its header needs " +
                  std::to_string(needed) + ")");
  };

  const std::uint64_t prefix = kFixedHeader + key.size() + kSizeFields;
  std::string head(static_cast<std::size_t>(std::min(size, prefix)), '\0');
  long long got = pread_all(fd, head.data(), head.size(), 0);
  if (got < 0) return std::nullopt;  // an I/O error: a miss, the file may be fine
  head.resize(static_cast<std::size_t>(got));

  const std::size_t magic_bytes = std::min(head.size(), sizeof kMagic);
  if (std::memcmp(head.data(), kMagic, magic_bytes) != 0) return reject("not a Tack cache file (bad magic)");
  if (head.size() < kFixedHeader) return truncated(kFixedHeader);
  const std::uint32_t version = get_u32(head.data() + 8);
  if (version != kFormatVersion)
    return reject("cache format version " + std::to_string(version) + ", this Tack reads version " +
                  std::to_string(kFormatVersion));
  const std::uint32_t key_size = get_u32(head.data() + 12);
  if (key_size != key.size())
    return reject("key mismatch (a hash collision or a foreign file): the stored key has " + std::to_string(key_size) +
                  " bytes, the requested one " + std::to_string(key.size()));
  if (head.size() < prefix) return truncated(prefix);
  if (std::memcmp(head.data() + kFixedHeader, key.data(), key.size()) != 0)
    return reject("key mismatch (a hash collision or a foreign file): the stored key differs");
  const std::uint64_t payload_size = get_u64(head.data() + kFixedHeader + key.size());
  const std::uint64_t checksum = get_u64(head.data() + kFixedHeader + key.size() + 8);
  if (size - prefix < payload_size)
    return reject("truncated (the file has " + std::to_string(size) + " bytes, its header announces " +
                  std::to_string(payload_size) + " bytes of payload after " + std::to_string(prefix) + ")");
  if (size - prefix > payload_size)
    return reject("size mismatch (the file has " + std::to_string(size) + " bytes, its header says " +
                  std::to_string(prefix + payload_size) + ")");

  std::string payload(static_cast<std::size_t>(payload_size), '\0');
  got = pread_all(fd, payload.data(), payload.size(), prefix);
  if (got < 0) return std::nullopt;
  if (static_cast<std::uint64_t>(got) != payload_size) return truncated(prefix + payload_size);
  if (XXH3_64bits(payload.data(), payload.size()) != checksum) return reject("payload checksum mismatch");

  // A hit is a use: LRU eviction orders by mtime. (futimens is utimensat on the
  // open file, so it touches the file we checked even if it was replaced since.)
  // Failure (a read-only shared cache) is harmless. An entry touched within the
  // last minute is not touched again: its order among the entries hardly
  // changes, and a program's first calls skip a metadata write per kernel.
  constexpr std::time_t kTouchAfterSeconds = 60;
  if (std::time(nullptr) - st.st_mtime >= kTouchAfterSeconds) ::futimens(fd, nullptr);
  return payload;
}

void DiskCache::store_impl(std::string_view key, std::string_view payload) {
  if (!enabled() || key.size() > std::numeric_limits<std::uint32_t>::max()) return;
  const std::string path = path_for(key);

  std::string header;
  header.reserve(kFixedHeader + key.size() + kSizeFields);
  header.append(kMagic, sizeof kMagic);
  put_u32(header, kFormatVersion);
  put_u32(header, static_cast<std::uint32_t>(key.size()));
  header.append(key);
  put_u64(header, payload.size());
  put_u64(header, XXH3_64bits(payload.data(), payload.size()));

  std::string temp;
  int fd = -1;
  OpenResult opened = OpenResult::retry;
  for (int attempt = 0; attempt < 3 && opened == OpenResult::retry; ++attempt) opened = open_temp(path, temp, fd);
  if (opened != OpenResult::ok) {
    if (opened == OpenResult::retry) warn_write_failure(path, EEXIST);
    return;
  }

  bool ok = write_all(fd, header.data(), header.size()) && write_all(fd, payload.data(), payload.size());
  int err = ok ? 0 : errno;
  // No fsync: it costs milliseconds per store (as much as compiling a small
  // kernel), and its only benefit is durability across a power loss. A file
  // torn by a crash fails load()'s size or checksum check and is rebuilt, so
  // the cache never returns a wrong artifact without it.
  if (::close(fd) != 0 && ok) {  // NFS and quotas report write errors at close
    ok = false;
    err = errno;
  }
  if (ok && disk_cache_before_rename_for_tests) disk_cache_before_rename_for_tests(temp);
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {  // atomic: readers see the old file or the new one
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    warn_write_failure(path, err);
    return;
  }
  after_store(header.size() + payload.size());
}

DiskCache::OpenResult DiskCache::open_temp(const std::string& final_path, std::string& temp_path, int& fd) {
  temp_path = final_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(::gettid()) + "." +
              std::to_string(temp_counter.fetch_add(1, std::memory_order_relaxed));
  fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd >= 0) return OpenResult::ok;
  const int err = errno;
  switch (err) {
    case ENOENT: {  // no directory: the first store, or it was removed mid-run
      std::error_code ec;
      std::filesystem::create_directories(cfg_.dir, ec);
      if (ec) {
        degrade("cannot create it", ec.value());
        return OpenResult::failed;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      scanned_ = false;  // a new directory: the size estimate starts over
      bytes_at_scan_ = bytes_since_scan_ = 0;
      return OpenResult::retry;
    }
    case EEXIST: return OpenResult::retry;  // a leftover temporary file with this very name
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case EIO:
    case EINTR:  // transient: this entry is not cached, later ones may be
      warn_write_failure(final_path, err);
      return OpenResult::failed;
    default:  // EACCES, EPERM, EROFS, ENOTDIR, ...: the directory is not usable
      degrade("cannot write to it", err);
      return OpenResult::failed;
  }
}

void DiskCache::degrade(const std::string& what, int err) {
  if (degraded_.exchange(true)) return;
  warn("disk cache: directory '" + cfg_.dir + "' is not usable (" + what + ": " + errno_text(err) +
       "); compiled kernels are cached in memory only in this process. Set TACK_CACHE_DIR to a writable "
       "directory, or TACK_CACHE=0 to turn the disk cache off");
}

void DiskCache::warn_write_failure(const std::string& path, int err) {
  if (warned_write_failure_.exchange(true)) return;
  warn("disk cache: could not write '" + path + "' (" + errno_text(err) +
       "); that kernel is not cached on disk. Later write failures are not reported");
}

void DiskCache::after_store(std::uint64_t file_bytes) {
  if (cfg_.max_bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  bytes_since_scan_ += file_bytes;
  // The estimate ignores other processes' stores and counts a replaced entry
  // twice; it only decides when to look, the scan measures.
  if (!scanned_ || bytes_at_scan_ + bytes_since_scan_ > cfg_.max_bytes) scan_and_evict();
}

void DiskCache::scan_and_evict() {
  DIR* d = ::opendir(cfg_.dir.c_str());
  if (!d) return;  // scanned_ stays false: the next store tries again
  const int dfd = ::dirfd(d);
  const std::time_t now = std::time(nullptr);

  struct Entry {
    struct timespec mtime;
    std::uint64_t size;
    std::string name;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  while (struct dirent* e = ::readdir(d)) {
    bool temp = false;
    if (!is_cache_file_name(e->d_name, temp)) continue;
    struct stat st;
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (temp) {  // a writer's file in flight is left alone; one a crash left behind is removed
      if (st.st_mtime < now - kStaleTempSeconds) ::unlinkat(dfd, e->d_name, 0);
      continue;
    }
    total += static_cast<std::uint64_t>(st.st_size);
    entries.push_back({st.st_mtim, static_cast<std::uint64_t>(st.st_size), e->d_name});
  }

  if (total > cfg_.max_bytes) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec < b.mtime.tv_sec;
      if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec < b.mtime.tv_nsec;
      return a.name < b.name;
    });
    const std::uint64_t target = cfg_.max_bytes - cfg_.max_bytes / 10;  // 90%: leave room before the next scan
    for (const Entry& e : entries) {
      if (total <= target) break;
      if (::unlinkat(dfd, e.name.c_str(), 0) == 0 || errno == ENOENT) total -= e.size;
    }
  }
  ::closedir(d);
  scanned_ = true;
  bytes_at_scan_ = total;
  bytes_since_scan_ = 0;
}

}  // namespace tack::runtime
