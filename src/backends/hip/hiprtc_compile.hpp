// HIP C to a code object with hipRTC (reference: HIP, Compilation). One option:
// -ffp-contract=on, because hipRTC's default (fast) fused a product into a sum
// of a later statement where the product had another use (p - p was not zero);
// -ffp-contract=off for a kernel made with fp_contract off.
// hipRTC targets the current device; tests name an architecture instead.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

namespace tack::backends::hip {

inline constexpr std::array<const char*, 1> kHiprtcOptions = {"-ffp-contract=on"};
inline constexpr std::array<const char*, 1> kHiprtcOptionsNoContract = {"-ffp-contract=off"};

inline const std::array<const char*, 1>& hiprtc_options(bool fp_contract) {
  return fp_contract ? kHiprtcOptions : kHiprtcOptionsNoContract;
}

// Compiles `source` (kernel `entry`) with hiprtc_options(fp_contract), the
// kernel's ir::Kernel::fp_contract; `extra` options follow
// (e.g. "--offload-arch=gfx90a"). Throws CompileError with the log and source,
// BackendUnavailable when hipRTC cannot be loaded.
std::vector<char> compile_code_object(const std::string& source, const std::string& entry, bool fp_contract,
                                      std::initializer_list<const char*> extra = {});

}  // namespace tack::backends::hip
