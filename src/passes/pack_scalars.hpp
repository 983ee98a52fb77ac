// Scalar arguments on the GPU (reference: "Scalar arguments on the GPU"): every
// value the host passes by value becomes a load from a small array, one array
// per dtype, so a kernel has one binding per scalar dtype rather than one per
// scalar, and a new value never recompiles. Beside the scalar parameters this
// pass also packs array sizes and extents and texture extents into the i64 pack:
// they are host scalars too, and Metal's binding count is what packing is for.
#pragma once

#include "abi/scalar_pack.hpp"
#include "ir/ir.hpp"

namespace tack::passes {

// The layout types are the kernel ABI's (abi/scalar_pack.hpp); these names keep the pass's callers unchanged.
using abi::PackArray;
using abi::PackedKernel;
using abi::PackSlot;
using abi::ScalarPack;

// The packed kernel is input for code generators only (abi::PackedKernel says why).
PackedKernel pack_scalars(const ir::Kernel& typed);

}  // namespace tack::passes
