// MSL for the metal backend (reference: Metal): every parameter, the scalar packs
// included, is a field of one argument buffer, which is what makes overlapping
// arrays legal in MSL; the index comes from [[thread_position_in_grid]]. Apple
// GPUs have no double precision, so an f64 value anywhere is a TypeError.
#pragma once

#include "codegen/c_family.hpp"

namespace tack::codegen {

CSource generate_msl(const abi::PackedKernel& packed);

}  // namespace tack::codegen
