// The disk-cache payload of a compiled GPU kernel: the entry point's name and
// the compiler's output (PTX, a HIP code object, an OpenCL program binary), as
// "ENTRY:<name>\n<image>". The cache checks the payload's checksum; this
// checks its shape, so a malformed entry is recompiled instead of loaded.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tack::runtime {

struct CachedBinary {
  std::string entry;
  std::string image;
};

std::string encode_cached_binary(std::string_view entry, std::string_view image);
// nullopt when the payload is not "ENTRY:<name>\n..." with a non-empty name.
std::optional<CachedBinary> decode_cached_binary(std::string_view payload);

}  // namespace tack::runtime
