// Where the disk cache lives and how big it may grow: the configuration read
// from the environment, and the folder made absolute (see disk_cache.hpp).
#include "runtime/cache/disk_cache.hpp"

#include "runtime/diagnostics/warnings.hpp"
#include "support/env.hpp"

#include <cctype>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace tack::runtime {
namespace {

std::string nonempty_env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string home_directory() {
  std::string home = nonempty_env("HOME");
  if (!home.empty()) return home;
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* result = nullptr;
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &result) == 0 && result && result->pw_dir)
    return result->pw_dir;
  return {};
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  std::string unit;
  for (char c : text.substr(i)) unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  int shift = 0;
  if (!unit.empty() && (unit[0] == 'k' || unit[0] == 'm' || unit[0] == 'g')) {
    shift = unit[0] == 'k' ? 10 : unit[0] == 'm' ? 20 : 30;
    unit.erase(0, 1);
    if (unit == "ib" || unit == "b") unit.clear();
  } else if (unit == "b") {
    unit.clear();
  }
  if (!unit.empty()) return std::nullopt;
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  value <<= shift;
  if (value == 0) return std::nullopt;
  return value;
}

DiskCacheConfig disk_cache_config_from_env() {
  DiskCacheConfig cfg;
  cfg.enabled = support::env_flag("TACK_CACHE");

  cfg.dir = support::env_text("TACK_CACHE_DIR").value_or("");
  if (cfg.dir.empty()) {
    std::string xdg = nonempty_env("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg.front() == '/') {  // the XDG spec says to ignore a relative path
      cfg.dir = xdg + "/tack";
    } else {
      std::string home = home_directory();
      if (!home.empty()) cfg.dir = home + "/.cache/tack";
    }
  }
  if (cfg.dir.empty() && cfg.enabled) {
    warn("disk cache: no directory for it (TACK_CACHE_DIR, XDG_CACHE_HOME and HOME are unset); the disk cache is off");
    cfg.enabled = false;
  }

  cfg.max_bytes = DiskCache::kDefaultMaxBytes;
  if (const std::optional<std::string> max = support::env_text("TACK_CACHE_MAX_BYTES")) {
    if (auto parsed = parse_byte_size(*max)) {
      cfg.max_bytes = *parsed;
    } else {
      warn("TACK_CACHE_MAX_BYTES='" + *max +
           "' is not a size (write bytes, or a number with K, M or G, e.g. 512M); using the default, 1G");
    }
  }
  return cfg;
}

// Absolute, so a later chdir() does not move the cache, and lexically normal
// ("." and empty components dropped, ".." taking one off). By hand rather than
// with std::filesystem: this runs on every program's first kernel call, and
// std::filesystem's first use there cost about 40 us.
std::string absolute_cache_dir(const std::string& dir) {
  std::string full = dir;
  if (full.front() != '/') {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd)) return dir;
    full = std::string(cwd) + "/" + dir;
  }
  std::vector<std::string_view> parts;
  const std::string_view text(full);
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find('/', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view part = text.substr(at, end - at);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    at = end + 1;
  }
  std::string out;
  for (std::string_view part : parts) (out += '/') += part;
  return out.empty() ? "/" : out;
}

}  // namespace tack::runtime
