// The barrier rule, the same on every backend: every work-item of a group reaches
// each barrier and group reduction together. A barrier some work-items skip is
// undefined on every GPU API (it hangs or corrupts the launch), so Tack refuses such a
// kernel at the call, before generating code for any backend.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// Throws tack::InvalidArgument, naming the kernel and the lines of the barrier (or
// group reduction, or break_/continue_ of a loop holding one) and of the control
// flow around it, when a typed workgroup kernel holds one inside an if_, for_range or
// while_ whose condition or bounds are not uniform (analysis/group_uniformity.hpp).
// Does nothing for parallel_for kernels.
void check_barriers(const ir::Kernel& typed);

}  // namespace tack::passes
