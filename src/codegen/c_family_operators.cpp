// The C-family emitter's operators, by category: comparisons, bool logic,
// float arithmetic and math functions (contraction only where docs/semantics.md allows
// it), and integer arithmetic that wraps in unsigned types with docs/semantics.md's
// edge cases in helpers.
#include "codegen/c_family.hpp"

#include "ir/check.hpp"

namespace tack::codegen {

namespace {
// "(a op b)"
std::string binary(const std::string& a, const char* op, const std::string& b) {
  return "(" + a + " " + op + " " + b + ")";
}
}  // namespace

std::string CFamilyCodeGen::op(const ir::Op* n, const ir::Expr& self) {
  const DType t = n->args[0]->type.dtype;
  const Operands x{expr(n->args[0]), n->arity() >= 2 ? expr(n->args[1]) : std::string(),
                   n->arity() >= 3 ? expr(n->args[2]) : std::string()};
  using ir::OpCode;
  switch (n->op) {
    case OpCode::Eq: return binary(x.a, "==", x.b);
    case OpCode::Ne: return binary(x.a, "!=", x.b);
    case OpCode::Lt: return binary(x.a, "<", x.b);
    case OpCode::Le: return binary(x.a, "<=", x.b);
    case OpCode::Gt: return binary(x.a, ">", x.b);
    case OpCode::Ge: return binary(x.a, ">=", x.b);
    default: break;
  }
  if (t == DType::Bool) return bool_op(n->op, x);
  if (is_float(t)) return float_op(n, self, t, x);
  return int_op(n, self, t, x);
}

std::string CFamilyCodeGen::bool_op(ir::OpCode op, const Operands& x) {
  using ir::OpCode;
  switch (op) {
    case OpCode::Not:
    case OpCode::BitNot: return "(!" + x.a + ")";
    case OpCode::And:
    case OpCode::BitAnd:
    case OpCode::Min: return binary(x.a, "&&", x.b);
    case OpCode::Or:
    case OpCode::BitOr:
    case OpCode::Max: return binary(x.a, "||", x.b);
    case OpCode::BitXor: return binary(x.a, "!=", x.b);
    default: TACK_UNREACHABLE("c_family: operator not defined on bool");
  }
}

std::string CFamilyCodeGen::float_op(const ir::Op* n, const ir::Expr& self, DType t, const Operands& x) {
  const std::string& a = x.a;
  const std::string& b = x.b;
  auto fn1 = [&](const char* name) { return math(name, t) + "(" + a + ")"; };
  auto fn2 = [&](const char* name) { return math(name, t) + "(" + a + ", " + b + ")"; };
  using ir::OpCode;
  switch (n->op) {
    case OpCode::Neg: return "(-" + a + ")";
    case OpCode::Abs: return fn1("fabs");
    case OpCode::Add: return binary(a, "+", b);
    case OpCode::Sub: return binary(a, "-", b);
    case OpCode::Mul: return contract_.count(self.get()) ? binary(a, "*", b) : unfused_mul(t, a, b);
    case OpCode::Div: return binary(a, "/", b);
    case OpCode::Mod: return fn2("fmod");
    case OpCode::FloorDiv:
    case OpCode::FloorMod: return float_floor_helper(n->op, t) + "(" + a + ", " + b + ")";
    case OpCode::Min:
    case OpCode::Max: return min_max_helper(n->op, t) + "(" + a + ", " + b + ")";
    case OpCode::Floor: return fn1("floor");
    case OpCode::Ceil: return fn1("ceil");
    case OpCode::Round: return fn1("rint");
    case OpCode::Trunc: return fn1("trunc");
    case OpCode::Sqrt: return fn1("sqrt");
    case OpCode::Rsqrt:
      return "(" + literal(t, t == DType::F32 ? 0x3f800000u : 0x3ff0000000000000ull) + " / " + fn1("sqrt") + ")";
    case OpCode::Exp: return fn1("exp");
    case OpCode::Exp2: return fn1("exp2");
    case OpCode::Log: return fn1("log");
    case OpCode::Log2: return fn1("log2");
    case OpCode::Log10: return fn1("log10");
    case OpCode::Sin: return fn1("sin");
    case OpCode::Cos: return fn1("cos");
    case OpCode::Tan: return fn1("tan");
    case OpCode::Asin: return fn1("asin");
    case OpCode::Acos: return fn1("acos");
    case OpCode::Atan: return fn1("atan");
    case OpCode::Sinh: return fn1("sinh");
    case OpCode::Cosh: return fn1("cosh");
    case OpCode::Tanh: return fn1("tanh");
    case OpCode::Atan2: return fn2("atan2");
    case OpCode::Pow: return fn2("pow");
    case OpCode::Copysign: return fn2("copysign");
    case OpCode::Fma: return math("fma", t) + "(" + a + ", " + b + ", " + x.c + ")";
    case OpCode::IsNan: return "(isnan(" + a + ") != 0)";
    case OpCode::IsInf: return "(isinf(" + a + ") != 0)";
    default: TACK_UNREACHABLE("c_family: operator not defined on floats");
  }
}

// Integers: wrapping arithmetic in the unsigned type of at least 32 bits.
std::string CFamilyCodeGen::int_op(const ir::Op* n, const ir::Expr& self, DType t, const Operands& x) {
  const std::string& a = x.a;
  const std::string& b = x.b;
  const std::string T = type_name(t);
  const std::string W = wide_unsigned(t);
  const std::string mask = std::to_string(dtype_bits(t) - 1) + "u";
  // 32- and 64-bit operands convert to W and back without loss, so a chain of wrapping operations stays in W
  // and converts once ((T)(a + b * c) rather than a cast at every step); u32 and u64 are W already.
  const bool full_width = dtype_bits(t) >= 32;
  const bool is_w = t == unsigned_bits(t);
  auto u_arg = [&](int i, const std::string& text) -> std::string {
    if (is_w) return text;
    const ir::ExprNode* arg = n->args[static_cast<std::size_t>(i)].get();
    if (full_width && !temps_.count(arg)) {
      auto it = unsigned_form_.find(arg);
      if (it != unsigned_form_.end()) return "(" + it->second + ")";
      if (const auto* c = n->args[static_cast<std::size_t>(i)].as<ir::Const>(); c && c->i >= 0)
        return literal_int(unsigned_bits(t), c->i);
    }
    return "(" + W + ")" + text;
  };
  auto wrapped = [&](const std::string& v) {
    if (is_w) return "(" + v + ")";
    if (full_width) unsigned_form_[self.get()] = v;
    return "((" + T + ")(" + v + "))";
  };
  const std::string ua = u_arg(0, a), ub = n->arity() >= 2 ? u_arg(1, b) : std::string();
  using ir::OpCode;
  switch (n->op) {
    case OpCode::Neg: return wrapped("(" + W + ")0 - " + ua);
    case OpCode::Abs: return is_signed_int(t) ? int_abs_helper(t) + "(" + a + ")" : a;
    case OpCode::BitNot: return wrapped("~" + ua);
    case OpCode::Add: return wrapped(ua + " + " + ub);
    case OpCode::Sub: return wrapped(ua + " - " + ub);
    case OpCode::Mul: return wrapped(ua + " * " + ub);
    case OpCode::BitAnd: return wrapped(ua + " & " + ub);
    case OpCode::BitOr: return wrapped(ua + " | " + ub);
    case OpCode::BitXor: return wrapped(ua + " ^ " + ub);
    case OpCode::Shl: return wrapped(ua + " << (" + ub + " & " + mask + ")");
    case OpCode::Shr:
      // Arithmetic for signed types (C leaves a negative operand's shift implementation-defined; every GPU
      // compiler shifts arithmetically), logical for unsigned.
      if (is_signed_int(t)) return "((" + T + ")(" + a + " >> (int)(" + ub + " & " + mask + ")))";
      return wrapped(ua + " >> (" + ub + " & " + mask + ")");
    case OpCode::Div:
    case OpCode::Mod:
    case OpCode::FloorDiv:
    case OpCode::FloorMod: return int_division_helper(n->op, t) + "(" + a + ", " + b + ")";
    case OpCode::Min:
    case OpCode::Max: return min_max_helper(n->op, t) + "(" + a + ", " + b + ")";
    default: TACK_UNREACHABLE("c_family: operator not defined on integers");
  }
}

}  // namespace tack::codegen
