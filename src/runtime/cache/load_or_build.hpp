// The one disk-cache flow of every backend (docs/caching.md): ask the disk
// cache for the artifact of a key, load it if it is there and loads; else
// compile, load, and store what the compile made. The backend gives the key's
// typed fields and its two steps; the cache checks every file it reads and
// writes atomically (runtime/cache/disk_cache.hpp), so the flow only decides order.
#pragma once

#include "runtime/cache/cache_key.hpp"
#include "runtime/cache/disk_cache.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tack::runtime {

// What a compile step hands back: the loaded result, and the payload to store
// under the key (empty: nothing is stored, e.g. when the binary could not be read).
template <class T>
struct Built {
  T loaded;
  std::string payload;
};

// make_key() -> std::optional<CacheKey>: called only when the cache is on;
//   nullopt keeps this artifact off the disk (the toolchain cannot be named).
// load(std::string_view payload, std::string* store_again) -> T: a result that
//   tests false when the payload is malformed or refused (the step warns why);
//   a non-empty *store_again replaces the entry (a better artifact made on the way).
// compile(bool caching) -> Built<T>: throws on failure; makes a payload only when caching.
template <class T, class MakeKey, class Load, class Compile>
T load_or_build(DiskCache& cache, MakeKey&& make_key, Load&& load, Compile&& compile) {
  std::string text;
  if (cache.enabled())
    if (std::optional<CacheKey> key = make_key()) text = key_text(*key);
  if (!text.empty()) {
    if (std::optional<std::string> payload = cache.load(text)) {
      std::string again;
      if (T loaded = load(std::string_view(*payload), &again)) {
        if (!again.empty()) cache.store(text, again);
        return loaded;
      }
    }
  }
  Built<T> built = compile(!text.empty());
  if (!text.empty() && !built.payload.empty()) cache.store(text, built.payload);
  return std::move(built.loaded);
}

}  // namespace tack::runtime
