// The local derivative rules shared by reverse and forward mode: typed-IR arithmetic on one float dtype, and
// each float operation's partial derivatives with respect to its operands (docs/autodiff.md, "The rules").
#pragma once

#include "ir/ir.hpp"

#include <array>

namespace tack::autodiff {

// Builds typed IR in one float dtype. A null Expr stands for zero: the helpers fold it, and a constant one, away,
// so a rule like "1 * g" writes no multiplication.
struct FloatMath {
  DType dtype;

  ir::Type type() const { return ir::Type::strong(dtype); }
  ir::Expr constant(double v) const;
  ir::Expr add(const ir::Expr& a, const ir::Expr& b) const;
  ir::Expr sub(const ir::Expr& a, const ir::Expr& b) const;
  ir::Expr mul(const ir::Expr& a, const ir::Expr& b) const;
  ir::Expr div(const ir::Expr& a, const ir::Expr& b) const;
  ir::Expr neg(const ir::Expr& a) const;
  ir::Expr unary(ir::OpCode op, const ir::Expr& a) const;
  ir::Expr binary(ir::OpCode op, const ir::Expr& a, const ir::Expr& b) const;
  // a where cond holds, else b (either may be zero).
  ir::Expr select(const ir::Expr& cond, const ir::Expr& a, const ir::Expr& b) const;
};

// Boolean IR for the rules' conditions.
ir::Expr compare(ir::OpCode op, const ir::Expr& a, const ir::Expr& b);
ir::Expr logical_or(const ir::Expr& a, const ir::Expr& b);

// The partial derivatives of the float operation `op` (whose value is `self`) with respect to each operand, as
// typed IR over its operands: null where the partial is zero (floor, the integer parts of fmod) or the operand
// is not a float. The choices at points without a derivative are docs/autodiff.md's table.
std::array<ir::Expr, 3> partials(const ir::Op& op, const ir::Expr& self);

// The partial derivatives of a texture sample with respect to its coordinates u, v, w (f32): along each axis
// the difference of the samples at the texel coordinates around the point, times the extent - 1 (the software
// sample is linear between texels, docs/semantics.md), and 0 where the coordinate is clamped (outside (0, 1)).
// The extents are ArrayDims of the Texture3D parameter, dim 0, 1, 2 its width, height, depth: the one place IR
// holds them (ir/verify.cpp, the interpreter, pack_scalars and the LLVM generator accept them).
std::array<ir::Expr, 3> texture_partials(const ir::TexSample& sample);

// Whether the partials of `op` read its operands' values (mul does, add does not). Reverse mode needs those
// values again in its backward sweep, so a loop whose carried Vars feed them is recomputed (reverse_mode.cpp).
bool partials_read_operands(ir::OpCode op);

// Whether values of this dtype carry a derivative (f32 and f64; integers and bools do not).
inline bool differentiable(DType t) { return is_float(t); }
inline bool differentiable(const ir::Expr& e) { return e && differentiable(e->type.dtype); }

}  // namespace tack::autodiff
