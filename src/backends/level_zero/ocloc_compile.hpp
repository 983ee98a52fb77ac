// OpenCL C to SPIR-V (and, offline, to a device binary) with libocloc, as the
// Level Zero backend compiles (reference: Level Zero, Compilation):
//   compile -spv_only -device <device> -options "<kOclocOptions>" -file kernel.cl
#pragma once

#include <string>

namespace tack::backends::level_zero {

inline constexpr const char* kOclocOptions = "-cl-std=CL2.0 -cl-fp32-correctly-rounded-divide-sqrt";

struct OclocOutput {
  std::string spirv;   // always
  std::string binary;  // the device binary, when spirv_only is false
};

// Compiles `source` for `device` (a name such as "pvc" or "0x0bd5"). Throws
// CompileError with ocloc's log and the source, BackendUnavailable without libocloc.
OclocOutput compile_with_ocloc(const std::string& source, const std::string& device, bool spirv_only);

}  // namespace tack::backends::level_zero
