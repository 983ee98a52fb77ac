// tack::library_info: the build's versions and the disk cache's place, as the cache itself would read them.
#include <tack/about.hpp>

#include "runtime/cache/disk_cache.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/memory/access.hpp"

#include <tack/error.hpp>

namespace tack {

LibraryInfo library_info() {
  const runtime::DiskCacheConfig cache = runtime::disk_cache_config_from_env();
  LibraryInfo info;
  info.version = TACK_VERSION;
#ifdef TACK_LLVM_VERSION
  info.llvm_version = TACK_LLVM_VERSION;
#endif
  info.disk_cache = cache.enabled;
  info.cache_directory = cache.dir.empty() ? std::string() : runtime::absolute_cache_dir(cache.dir);
  info.cache_max_bytes = cache.max_bytes;
  return info;
}

std::vector<std::pair<std::string, std::string>> about(const Device& device) {
  const auto& backend = detail::Access::backend(device);
  if (!backend) throw InvalidArgument("about() of an empty tack::Device");
  return backend->about();
}

}  // namespace tack
