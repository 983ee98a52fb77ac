// The disk-cache key of a compiled artifact as typed fields (docs/caching.md,
// "What makes a key"): everything that can change the compiled code, named,
// so a backend cannot leave a field out by forgetting a concatenation and two
// different toolchains, targets or option sets can never spell the same key.
#pragma once

#include <string>

namespace tack::runtime {

struct CacheKey {
  std::string format;             // the entry's layout, e.g. "tack-cuda-ptx-1"; bumped when it changes
  std::string toolchain;          // the compiler: "nvrtc", "hiprtc", "ocloc", "llvm", an OpenCL platform
  std::string toolchain_version;  // its version, with the driver's where the driver compiles too
  std::string target;             // what the code is for: an architecture, a device, a CPU's features
  std::string options;            // the compile options, and anything else that selects the code
  std::string code;               // the typed IR's text (or the source of a fixed kernel)
};

// The key's text, as the disk cache stores and compares it: each field named
// and length-prefixed (so no field's text can pass for another's), and the
// build of the Tack library beside them (the generators change with it).
std::string key_text(const CacheKey& key);

}  // namespace tack::runtime
