// Encoding and checking the cached GPU kernel payload.
#include "runtime/cache/cached_binary.hpp"

namespace tack::runtime {

namespace {
constexpr std::string_view kEntryTag = "ENTRY:";
}

std::string encode_cached_binary(std::string_view entry, std::string_view image) {
  std::string out;
  out.reserve(kEntryTag.size() + entry.size() + 1 + image.size());
  out.append(kEntryTag).append(entry).append(1, '\n').append(image);
  return out;
}

std::optional<CachedBinary> decode_cached_binary(std::string_view payload) {
  const std::size_t nl = payload.find('\n');
  if (payload.substr(0, kEntryTag.size()) != kEntryTag || nl == std::string_view::npos || nl == kEntryTag.size())
    return std::nullopt;
  return CachedBinary{std::string(payload.substr(kEntryTag.size(), nl - kEntryTag.size())),
                      std::string(payload.substr(nl + 1))};
}

}  // namespace tack::runtime
