// The on-disk cache of compiled artifacts (docs/caching.md), shared by every backend:
// CPU object code, CUDA PTX, OpenCL program binaries, ... One file per entry,
// named by the 128-bit XXH3 of the full key text; every file is checked on
// load and written atomically (temporary file + rename). The cache is an
// optimization only: load() and store() never throw, a file that fails a check
// is removed with a warning, and a directory that cannot be written degrades
// the cache to "always miss" with one warning.
//
// File layout (integers little-endian):
//   offset 0   8 bytes  magic "TACKCAC\x1a"
//          8   u32      format version (kFormatVersion)
//         12   u32      key length K
//         16   K bytes  the full key text
//       16+K   u64      payload size P
//       24+K   u64      XXH3-64 of the payload
//       32+K   P bytes  the payload
// File name: <32 hex digits of XXH3-128(key)>.v<format version>.tack
// Temporary: <that name>.tmp.<pid>.<tid>.<counter>
#pragma once

#include "support/no_copy.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tack::runtime {

struct DiskCacheConfig {
  bool enabled = true;
  std::string dir;                       // made absolute by DiskCache's constructor
  std::uint64_t max_bytes = 1ull << 30;  // cap on the cache files' total size; 0: no cap
};

// TACK_CACHE: 0, false, no, off (any case) disable the cache; unset, empty or
// anything else enable it. TACK_CACHE_DIR: the directory; default
// $XDG_CACHE_HOME/tack (if absolute), else $HOME/.cache/tack. TACK_CACHE_MAX_BYTES:
// the size cap, see parse_byte_size; unset or empty gives 1 GiB, a bad value
// warns and gives 1 GiB.
DiskCacheConfig disk_cache_config_from_env();

// "1048576", "64K", "512M", "2G" (suffixes in any case, binary: K = 1024; an
// optional "B" or "iB" after the suffix; spaces around are ignored). Zero,
// negative, fractional, overflowing or otherwise malformed sizes give nullopt.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// `dir` made absolute (against the working directory now) and lexically normal,
// so a later chdir() does not move the cache.
std::string absolute_cache_dir(const std::string& dir);

// Tests only (unit.CpuCache.TwoProcessesWritingOneKeyAtOnce): when set, store()
// calls it after the temporary file is written and closed, before the rename,
// so a test can hold two writers of one key in that window at once. Null, the
// default, does nothing.
extern void (*disk_cache_before_rename_for_tests)(const std::string& temp_path);

class DiskCache : support::NoCopy {
 public:
  static constexpr std::uint32_t kFormatVersion = 1;
  static constexpr std::uint64_t kDefaultMaxBytes = 1ull << 30;

  explicit DiskCache(DiskCacheConfig cfg);

  // The process's cache, configured from the environment on first use. Use
  // this one: the "warn once" promises hold per DiskCache object.
  static DiskCache& global();

  // For tests in a forked child that has just set TACK_CACHE_DIR or
  // TACK_CACHE: global() configured again from the environment, whether or
  // not the process had made it before the fork (the old one is left as it is,
  // for anything still holding it).
  static void reconfigure_global_for_tests();

  // The payload stored under exactly this key, or nullopt: a miss, a disabled or
  // degraded cache, or a file that failed a check (then removed, with a
  // warning naming the file and the reason). A hit refreshes the file's mtime,
  // which is what LRU eviction orders by.
  std::optional<std::string> load(std::string_view key) noexcept;

  // Writes the entry (replacing any previous one) and evicts least recently
  // used entries if the cap may be exceeded. Failures warn (once) and are
  // otherwise ignored.
  void store(std::string_view key, std::string_view payload) noexcept;

  // False when configured off or degraded to memory only; callers may skip
  // building the key text then.
  bool enabled() const;
  const std::string& dir() const;
  std::uint64_t max_bytes() const { return cfg_.max_bytes; }

  // The file that holds `key`'s entry (for tests and diagnostics).
  std::string path_for(std::string_view key) const;

 private:
  enum class OpenResult { ok, retry, failed };

  void store_impl(std::string_view key, std::string_view payload);
  std::optional<std::string> load_impl(std::string_view key);
  OpenResult open_temp(const std::string& final_path, std::string& temp_path, int& fd);
  void degrade(const std::string& what, int err);
  void warn_write_failure(const std::string& path, int err);
  void after_store(std::uint64_t file_bytes);
  void scan_and_evict();  // holds mutex_

  DiskCacheConfig cfg_;
  std::atomic<bool> degraded_{false};
  std::atomic<bool> warned_write_failure_{false};

  std::mutex mutex_;                 // guards the size estimate and serializes scans
  bool scanned_ = false;             // a scan happened since construction (or the directory was recreated)
  std::uint64_t bytes_at_scan_ = 0;  // the cache files' total after the last scan
  std::uint64_t bytes_since_scan_ = 0;
};

}  // namespace tack::runtime
