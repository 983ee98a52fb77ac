// The order of an adjoint's scatter: consecutive atomic adds are unordered by their contract (docs/semantics.md),
// and the order in which a work-item runs them decides whether a CPU gang loads a vector right after storing one
// that overlaps it (in(i + 1, j) then in(i + 1, j + 2)), which store-to-load forwarding cannot serve: the
// Jacobi adjoint took 4.3 ms in its reads' order and 2.6 ms in this one.
#pragma once

#include "ir/ir.hpp"

namespace tack::autodiff {

// Within each run of consecutive atomic adds and subs whose old values nothing reads, puts the adds into one
// array in decreasing order of their innermost subscript's constant offset (the gang, advancing along it, then
// stores furthest from what the next of its accesses, and the next gang's first, loads); the rest keep their
// order.
ir::Kernel order_scatters(const ir::Kernel& k);

}  // namespace tack::autodiff
