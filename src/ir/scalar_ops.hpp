// docs/semantics.md on single values: the one definition of what every operator and
// conversion computes. The interpreter runs it lane by lane and constant folding
// uses it, so the two can never disagree.
//
// A value travels as Bits (64 bits): integers sign- or zero-extended from their
// width, bool as 0 or 1, f32 as its IEEE bit pattern in the low 32 bits, f64 as
// its bit pattern.
#pragma once

#include "ir/ir.hpp"

#include <cstdint>

namespace tack::ir {

using Bits = std::uint64_t;

// Applies `op` to operands that all have dtype `t` (for Compare/Classify the
// result is Bool; otherwise it has dtype t). Integer arithmetic wraps, division
// and remainder by zero give 0, shifts take the count modulo the width, float
// min/max return the non-NaN operand, round is half to even.
Bits eval_op(OpCode op, DType t, const Bits* args);

// Converts v from one dtype to another as Cast does: float to int truncates and
// saturates (NaN gives 0), int to float and f64 to f32 round to nearest even,
// int to int wraps, anything to bool is "!= 0".
Bits eval_cast(DType from, DType to, Bits v);

// Normalizes raw bits to the canonical form for t (truncate then extend).
Bits normalize(DType t, Bits v);

Bits bits_from_int(DType t, std::int64_t v);  // wraps to t
Bits bits_from_double(DType t, double v);     // floats: rounds; ints: as eval_cast from f64
double bits_to_double(DType t, Bits v);
std::int64_t bits_to_int(DType t, Bits v);  // ints and bool; u64 returns its bit pattern

// Constants as Bits and back (the Const must be Strong, or Weak at its own dtype).
Bits const_bits(const Const* c);
Expr make_const(DType t, Bits v);

}  // namespace tack::ir
