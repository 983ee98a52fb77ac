// Names the host CPU for the CPU backend's cache keys without LLVM: the raw
// cpuid words LLVM's host detection reads (vendor, family and model, the
// feature leaves) and which of those features the OS enables. Equal words give
// equal LLVM CPU names and features, so object code compiled for one is right
// for the other; reading them costs a few microseconds where LLVM's detection
// cost about 0.1 ms of a cached program's first call.
#pragma once

#include <string>

namespace tack::backends::cpu {

// "x86:<hex words>" on x86-64; empty on other hosts (the caller asks LLVM).
std::string host_cpu_id();

}  // namespace tack::backends::cpu
