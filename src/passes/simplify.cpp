// Constant folding and algebraic identities that hold bit for bit under docs/semantics.md.
#include "passes/simplify.hpp"

#include "ir/memo_mutator.hpp"
#include "ir/scalar_ops.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tack::passes {
namespace {

using namespace tack::ir;

// Functions that docs/semantics.md leaves to each backend's math library ("a few ulp"). Folding
// them with the compiling machine's libm would make a kernel's result depend on where
// it was compiled, and make f(constant) disagree with f of the same value at run time on
// the same backend; so every backend computes them itself. rsqrt belongs here: §4 rounds
// only sqrt correctly, and GPUs compute rsqrt approximately.
bool is_library_function(OpCode op) { return op == OpCode::Rsqrt || ir::is_transcendental(op); }

// Constants are compared by bits, so +0.0 and -0.0 are different values here.
// For integers, v = -1 means all ones (u8 255, bool true).
bool is_int(const Expr& e, std::int64_t v) {
  auto c = e.as<Const>();
  return c && !is_float(c->type.dtype) && const_bits(c) == bits_from_int(c->type.dtype, v);
}
bool is_float_value(const Expr& e, double v) {
  auto c = e.as<Const>();
  return c && is_float(c->type.dtype) && const_bits(c) == bits_from_double(c->type.dtype, v);
}

// Integer and bool identities. Integer arithmetic wraps and division by zero is
// defined (§4), and expressions are pure, so dropping or duplicating an operand
// never changes a result or loses an effect.
Expr integer_identity(OpCode op, DType t, const Expr& x, const Expr& y) {
  const bool same = y && x.same_as(y);  // structurally equal operands are one node after cse
  auto zero = [&] { return make_const(t, 0); };
  if (is_integer(t)) {
    switch (op) {
      case OpCode::Add:
        if (is_int(y, 0)) return x;
        if (is_int(x, 0)) return y;
        break;
      case OpCode::Sub:
        if (is_int(y, 0)) return x;
        if (same) return zero();
        break;
      case OpCode::Mul:
        if (is_int(y, 1)) return x;
        if (is_int(x, 1)) return y;
        if (is_int(y, 0)) return y;
        if (is_int(x, 0)) return x;
        break;
      case OpCode::Div:
      case OpCode::FloorDiv:
        if (is_int(y, 1)) return x;
        if (is_int(y, 0)) return y;  // x / 0 gives 0
        if (is_int(x, 0)) return x;  // 0 / y is 0 for every y, 0 included
        break;
      case OpCode::Mod:
      case OpCode::FloorMod:
        // x % 0 gives 0, and x % -1 is 0 even for MIN (§4); for unsigned t, -1 would be all ones.
        if (is_int(y, 1) || is_int(y, 0) || (is_signed_int(t) && is_int(y, -1))) return zero();
        if (is_int(x, 0)) return x;
        break;
      case OpCode::Min:
      case OpCode::Max:
        if (same) return x;
        break;
      case OpCode::Shl:
      case OpCode::Shr: {
        // The count is taken modulo the (power of two) width, whatever its sign.
        auto c = y.as<Const>();
        if (c && (const_bits(c) & static_cast<Bits>(dtype_bits(t) - 1)) == 0) return x;
        if (is_int(x, 0)) return x;
        break;
      }
      default: break;
    }
  }
  switch (op) {
    case OpCode::BitAnd:
      if (same || is_int(y, -1)) return x;
      if (is_int(x, -1)) return y;
      if (is_int(y, 0)) return y;
      if (is_int(x, 0)) return x;
      break;
    case OpCode::BitOr:
      if (same || is_int(y, 0)) return x;
      if (is_int(x, 0)) return y;
      if (is_int(y, -1)) return y;
      if (is_int(x, -1)) return x;
      break;
    case OpCode::BitXor:
      if (is_int(y, 0)) return x;
      if (is_int(x, 0)) return y;
      if (same) return zero();
      break;
    case OpCode::And:
      if (same || is_int(y, 1)) return x;
      if (is_int(x, 1)) return y;
      if (is_int(y, 0)) return y;
      if (is_int(x, 0)) return x;
      break;
    case OpCode::Or:
      if (same || is_int(y, 0)) return x;
      if (is_int(x, 0)) return y;
      if (is_int(y, 1)) return y;
      if (is_int(x, 1)) return x;
      break;
    // Integers and bools equal themselves; floats do not (NaN), so this is integer-only.
    case OpCode::Eq:
    case OpCode::Le:
    case OpCode::Ge:
      if (same) return Const::make_bool(true);
      break;
    case OpCode::Ne:
    case OpCode::Lt:
    case OpCode::Gt:
      if (same) return Const::make_bool(false);
      break;
    default: break;
  }
  return {};
}

// Float identities: only those exact under IEEE 754 for every operand, signed zeros,
// infinities and NaN included. A NaN operand comes back as itself where IEEE
// arithmetic would quiet a signalling NaN; §4 fixes no NaN payloads, and LLVM folds the
// same identities without fast-math. Removing an operation can bring a product next to
// an addition (x*y*1 + z), which §4 allows to contract in one expression.
//
// Refused, with the operand that breaks them:
//   x + 0.0 -> x      x = -0.0: -0.0 + 0.0 is +0.0
//   x - (-0.0) -> x   the same: it is x + 0.0
//   x * 0 -> 0        x = NaN or inf gives NaN; x < 0 gives -0.0
//   x - x -> 0        x = NaN or inf gives NaN
//   x / x -> 1        x = 0, inf or NaN gives NaN
//   0 - x -> -x       x = +0.0: 0 - 0 is +0.0, -x is -0.0
//   x * -1 -> -x      only the sign of a NaN result may differ; not worth a rule
//   x == x -> true    false for NaN (and x != x, x < x, ... likewise)
Expr float_identity(OpCode op, const Expr& x, const Expr& y) {
  switch (op) {
    case OpCode::Mul:  // x * 1 is x for every x, -0.0 and inf included
      if (is_float_value(y, 1.0)) return x;
      if (is_float_value(x, 1.0)) return y;
      break;
    case OpCode::Div:  // x / 1 is x for every x
      if (is_float_value(y, 1.0)) return x;
      break;
    case OpCode::Add:  // -0.0 is the additive identity: +0.0 + -0.0 is +0.0, -0.0 + -0.0 is -0.0
      if (is_float_value(y, -0.0)) return x;
      if (is_float_value(x, -0.0)) return y;
      break;
    case OpCode::Sub:  // x - 0.0 is x + -0.0
      if (is_float_value(y, 0.0)) return x;
      break;
    case OpCode::Min:
    case OpCode::Max:  // min(x, x) is x, NaN included (a NaN operand yields the other, also NaN)
      if (x.same_as(y)) return x;
      break;
    default: break;
  }
  return {};
}

// pow(x, y) for the constant exponents whose result one correctly rounded operation gives: 1 for y = ±0 (x NaN
// too), x for 1, x * x for 2, 1 / x for -1, and for 0.5 the square root, +0 at -0 and +inf at -inf as pow has
// them. docs/semantics.md leaves pow to each math library within a few ulp; these are the correctly rounded values,
// the same on every backend, and a multiply where LLVM's scalar optimizer already turned pow(x, 2) into one but a
// SIMD gang called the vector pow (issue 31: a likelihood kernel 3-6x slower in gangs). A constant base keeps its
// pow, as every library function does.
Expr pow_of_constant_exponent(const Op* n, const Expr& x, const Expr& y) {
  const DType t = n->type.dtype;
  if ((t != DType::F32 && t != DType::F64) || x.as<Const>()) return {};
  auto c = [&](double v) { return make_const(t, bits_from_double(t, v)); };
  if (is_float_value(y, 0.0) || is_float_value(y, -0.0)) return c(1.0);
  if (is_float_value(y, 1.0)) return x;
  if (is_float_value(y, 2.0)) return Op::make(n->type, OpCode::Mul, x, x);
  if (is_float_value(y, -1.0)) return Op::make(n->type, OpCode::Div, c(1.0), x);
  if (is_float_value(y, 0.5)) {
    const double inf = std::numeric_limits<double>::infinity();
    Expr at_minus_inf = Op::make(Type::strong(DType::Bool), OpCode::Eq, x, c(-inf));
    Expr root = Op::make(n->type, OpCode::Abs, Op::make(n->type, OpCode::Sqrt, x));
    return Select::make(n->type, at_minus_inf, c(inf), root);
  }
  return {};
}

// pow(x, n) for any other integer constant n is pow(|x|, n), its sign x's for odd n: the same value for every x, as
// IEEE pow is odd or even in x (-0, inf and NaN included). A vector pow (glibc's libmvec) computes a lane with a
// negative base on a slow scalar path for the whole vector; (v - mean)^3 is mostly negative bases.
Expr pow_of_integer_exponent(const Op* n, const Expr& x, const Expr& y) {
  const DType t = n->type.dtype;
  auto e = y.as<Const>();
  if ((t != DType::F32 && t != DType::F64) || x.as<Const>() || !e || !is_float(e->type.dtype)) return {};
  const double v = e->f;
  if (!(std::abs(v) < 9007199254740992.0) || v != std::trunc(v)) return {};  // finite integers only
  Expr magnitude = Op::make(n->type, OpCode::Pow, Op::make(n->type, OpCode::Abs, x), y);
  if (std::fmod(v, 2.0) == 0.0) return magnitude;
  return Op::make(n->type, OpCode::Copysign, magnitude, x);
}

// Returns the simplified form of op(a...), or an empty Expr when no rule applies.
Expr simplify_op(const Op* n, const std::array<Expr, 3>& a) {
  const OpCode op = n->op;
  const int arity = n->arity();
  const DType t = a[0]->type.dtype;  // the operand dtype; the result is Bool for comparisons
  bool all_const = true;
  for (int i = 0; i < arity; ++i) all_const = all_const && a[i].as<Const>();
  if (all_const && !is_library_function(op)) {
    Bits in[3] = {};
    for (int i = 0; i < arity; ++i) in[i] = const_bits(a[i].as<Const>());
    return make_const(n->type.dtype, eval_op(op, t, in));
  }
  const Expr& x = a[0];
  if (auto inner = x.as<Op>()) {
    // -(-x), ~~x and !!x are x for every dtype: float negation flips the sign bit
    // (NaN too) and integer negation wraps, so -(-MIN) is MIN. abs is idempotent,
    // abs(MIN) being MIN.
    if ((op == OpCode::Neg || op == OpCode::BitNot || op == OpCode::Not) && inner->op == op) return inner->args[0];
    if (op == OpCode::Abs && inner->op == OpCode::Abs) return x;
  }
  if (op == OpCode::Pow) {
    if (Expr r = pow_of_constant_exponent(n, x, a[1])) return r;
    // Not again for its own result, whose base is already |x|.
    auto base = x.as<Op>();
    if (!base || base->op != OpCode::Abs)
      if (Expr r = pow_of_integer_exponent(n, x, a[1])) return r;
  }
  return is_float(t) ? float_identity(op, x, a[1]) : integer_identity(op, t, x, a[1]);
}

// Memoized by node (a product cse shared between two uses must stay one node, or a code
// generator could contract one use and not the other), for the whole kernel: the only
// context-dependent rewrite, LetRef -> constant, is the same at every use of a Let id.
class Simplifier : public MemoMutator {
 public:
  explicit Simplifier(std::size_t lets) : let_const_(lets) {}

 protected:
  using IRMutator::visit;

  Expr visit(const LetRef* n, const Expr& self) override {
    if (n->id >= 0 && static_cast<std::size_t>(n->id) < let_const_.size()) {
      const Expr& c = let_const_[n->id];
      if (c && c->type == n->type) return c;
    }
    return self;
  }

  Expr visit(const Op* n, const Expr& self) override {
    std::array<Expr, 3> a = {mutate(n->args[0]), mutate(n->args[1]), mutate(n->args[2])};
    if (Expr r = simplify_op(n, a)) return r;
    if (a[0].same_as(n->args[0]) && a[1].same_as(n->args[1]) && a[2].same_as(n->args[2])) return self;
    return Op::make(n->type, n->op, a[0], a[1], a[2]);
  }

  Expr visit(const Select* n, const Expr& self) override {
    Expr c = mutate(n->cond), a = mutate(n->if_true), b = mutate(n->if_false);
    if (auto k = c.as<Const>()) return const_bits(k) != 0 ? a : b;
    if (a.same_as(b)) return a;
    if (n->type.dtype == DType::Bool && is_int(a, 1) && is_int(b, 0)) return c;
    if (c.same_as(n->cond) && a.same_as(n->if_true) && b.same_as(n->if_false)) return self;
    return Select::make(n->type, c, a, b);
  }

  Expr visit(const Cast* n, const Expr& self) override {
    Expr v = mutate(n->value);
    if (auto k = v.as<Const>())
      return make_const(n->type.dtype, eval_cast(v->type.dtype, n->type.dtype, const_bits(k)));
    if (v->type == n->type) return v;
    return v.same_as(n->value) ? self : Cast::make(n->type, v);
  }

  // Splices the statements of a child that became a Block (a taken If branch), so
  // folding does not leave nesting behind. A Block of the input is left as it is.
  Stmt visit(const Block* n, const Stmt& self) override {
    std::vector<Stmt> out;
    out.reserve(n->stmts.size());
    bool changed = false;
    for (const Stmt& s : n->stmts) {
      Stmt m = mutate(s);
      if (m.same_as(s)) {
        out.push_back(m);
        continue;
      }
      changed = true;
      if (!m) continue;
      if (auto b = m.as<Block>()) {
        out.insert(out.end(), b->stmts.begin(), b->stmts.end());
      } else {
        out.push_back(std::move(m));
      }
    }
    return changed ? Block::make(std::move(out), n->loc) : self;
  }

  // A constant Let is the one value that moves across statements: it is the same
  // wherever the Let is visible, and nothing is computed twice.
  Stmt visit(const Let* n, const Stmt& self) override {
    Stmt r = IRMutator::visit(n, self);
    const Expr& v = r.as<Let>()->value;
    if (v.as<Const>() && n->id >= 0 && static_cast<std::size_t>(n->id) < let_const_.size()) let_const_[n->id] = v;
    return r;
  }

  Stmt visit(const If* n, const Stmt& self) override {
    Expr c = mutate(n->cond);
    if (auto k = c.as<Const>()) {
      if (const_bits(k) != 0) return mutate(n->then_case);
      return n->else_case ? mutate(n->else_case) : Stmt();
    }
    return IRMutator::visit(n, self);
  }

  // Bounds are pure, so a loop that runs no iteration has no effect at all.
  Stmt visit(const For* n, const Stmt& self) override {
    Expr lo = mutate(n->lo), hi = mutate(n->hi);
    if (lo.same_as(hi)) return Stmt();
    auto a = lo.as<Const>(), b = hi.as<Const>();
    if (a && b && bits_to_int(DType::I64, const_bits(b)) <= bits_to_int(DType::I64, const_bits(a))) return Stmt();
    return IRMutator::visit(n, self);
  }

 private:
  std::vector<Expr> let_const_;  // by Let id: its value, where that is a constant
};

}  // namespace

ir::Kernel simplify(const ir::Kernel& k) {
  Simplifier s(k.lets.size());
  return ir::mutate_kernel(k, s);
}

}  // namespace tack::passes
