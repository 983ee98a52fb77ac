// Lowers a workgroup kernel to loops over its work-items, for backends that run a
// whole group on one thread (the CPU), the way PoCL does.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// Takes a typed, optimized LaunchKind::Workgroup kernel and returns one with no
// barriers, group reductions or group values left. Its launch kind and dims stay
// (dims[0] groups; Workgroup keeps its shared arrays legal), but each iteration of
// the launch now runs a whole group: LoopIndex(0) is the group id, and every
// barrier-free region of the body is a `for lid in [0, 256)` loop. Group reductions
// fold a scratch shared array in work-item order (bit-identical to the
// interpreter); per-item values live across a barrier go to a shared array of 256
// elements (or are recomputed when cheap); uniform values stay scalars. The user's
// shared arrays are zeroed at the start of each group. Local arrays stay per
// work-item when the body has no barrier or group reduction, else each becomes a
// shared array of 256 copies (element i of work-item lid at i * 256 + lid), so
// that it lives across the barriers. Deterministic.
// Throws tack::InvalidArgument for a barrier, group reduction, break or continue
// inside control flow whose condition or bounds depend on the work-item, as
// passes::check_barriers (run for every backend before this) already does.
ir::Kernel lower_workgroups(const ir::Kernel& typed);

}  // namespace tack::passes
