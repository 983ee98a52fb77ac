// Which i64 Vars only ever hold values of 32 bits: a loop index over constant bounds, a constant, another such
// Var (k-means' `best = c`, the index of the nearest centre). The CPU keeps them in 32-bit registers and widens
// each read, which is exact; in a gang that halves their vectors and the mask work of every masked assignment.
#pragma once

#include "ir/ir.hpp"

#include <vector>

namespace tack::analysis {

// By Var id, for a typed kernel: true for an i64 Var every value of which (its initial one and each assigned)
// lies in [-2^31, 2^31).
std::vector<bool> i32_ranged_vars(const ir::Kernel& typed);

}  // namespace tack::analysis
