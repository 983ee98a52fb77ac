// The typing rules of the kernel language (docs/semantics.md): how two operand
// types combine, written once for type inference and its tests.
#pragma once

#include "ir/ir.hpp"

#include <optional>
#include <string>

namespace tack::passes {

// Promotion of two concrete dtypes, NumPy-like: bool < integers < floats; the
// wider of two floats; an integer with a float gives that float (f32 stays f32,
// unlike NumPy, because f64 is slow or absent on GPUs); signed with unsigned
// gives the signed type wide enough for both; u64 with a signed type has none
// and returns nullopt.
std::optional<DType> promote(DType a, DType b);

// Combines operand types, literals adapting: Unknown is neutral; a weak literal
// takes the other operand's strong type, except that a float literal meeting a
// bool or integer gives f32; two literals combine by promote() and stay weak.
// nullopt when the strong types cannot be combined.
std::optional<ir::Type> join(ir::Type a, ir::Type b);

}  // namespace tack::passes
