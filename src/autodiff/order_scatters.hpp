// The order of an adjoint's scatter: consecutive atomic adds are unordered by their contract (docs/semantics.md),
// and the order in which a work-item runs them decides whether a CPU gang loads a vector right after storing one
// that overlaps it (in(i + 1, j) then in(i + 1, j + 2)), which store-to-load forwarding cannot serve. Next to each
// other, the adds into one row run as one on the CPU's SIMD path (codegen/llvm/llvm_gang_row_adds.cpp), which
// never does: the Jacobi adjoint took 4.3 ms in its reads' order, 2.6 ms with each row's adds from the highest
// offset down, and 1.2-1.3 ms as rows of adds.
#pragma once

#include "ir/ir.hpp"

namespace tack::autodiff {

// Within each run of consecutive atomic adds and subs whose old values nothing reads, puts the adds into one
// array together, those into one row of it (the same outer subscripts, the innermost a launch index plus a
// constant) next to each other, in decreasing order of that constant; the rest keep their order.
ir::Kernel order_scatters(const ir::Kernel& k);

}  // namespace tack::autodiff
