// The work-group size every backend uses: one fact of the kernel ABI that the
// passes, the interpreter, the code generators and the backends must agree on.
#pragma once

#include <cstdint>

namespace tack::abi {

// Work-items per group of a workgroup kernel (docs/language.md, Workgroups), and
// the block size of a parallel launch on the GPU backends.
inline constexpr std::int64_t kGroupSize = 256;

}  // namespace tack::abi
