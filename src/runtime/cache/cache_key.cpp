// Spelling a typed cache key as the text the disk cache stores.
#include "runtime/cache/cache_key.hpp"

#include "runtime/cache/build_id.hpp"

namespace tack::runtime {
namespace {

void field(std::string& out, const char* name, const std::string& value) {
  out.append(name).append(1, ' ').append(std::to_string(value.size())).append(1, ':').append(value).append(1, '\n');
}

}  // namespace

std::string key_text(const CacheKey& key) {
  std::string out;
  out.reserve(key.code.size() + key.options.size() + key.target.size() + 256);
  field(out, "format", key.format);
  field(out, "tack", library_build_id());
  field(out, "toolchain", key.toolchain);
  field(out, "toolchain_version", key.toolchain_version);
  field(out, "target", key.target);
  field(out, "options", key.options);
  field(out, "code", key.code);
  return out;
}

}  // namespace tack::runtime
