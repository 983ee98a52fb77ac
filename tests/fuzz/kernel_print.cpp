// Prints a fuzz Program as C++ source that makes the same tack::lang calls as
// trace(), so a shrunk failing kernel can be pasted into a test.
#include "fuzz/kernel_generator.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tack::fuzz {

std::string short_type(DType t) { return std::string(dtype_name(t)); }

std::string cpp_type(DType t) {
  switch (t) {
    case DType::I8: return "std::int8_t";
    case DType::U8: return "std::uint8_t";
    case DType::I16: return "std::int16_t";
    case DType::U16: return "std::uint16_t";
    case DType::I32: return "std::int32_t";
    case DType::U32: return "std::uint32_t";
    case DType::I64: return "std::int64_t";
    case DType::U64: return "std::uint64_t";
    case DType::F32: return "float";
    case DType::F64: return "double";
    default: return "bool";
  }
}

std::string value_text(DType t, std::uint64_t b) {
  char buf[64];
  if (is_float(t)) {
    bool f32 = t == DType::F32;
    double v = f32 ? std::bit_cast<float>(static_cast<std::uint32_t>(b)) : std::bit_cast<double>(b);
    std::string lim = "std::numeric_limits<" + cpp_type(t) + ">::";
    if (std::isnan(v)) return lim + "quiet_NaN()";
    if (std::isinf(v)) return (v < 0 ? "-" : "") + lim + "infinity()";
    std::snprintf(buf, sizeof buf, "%a%s", v, f32 ? "f" : "");
    return buf;
  }
  int w = dtype_bits(t);
  if (is_signed_int(t)) {
    std::int64_t v = static_cast<std::int64_t>(b << (64 - w)) >> (64 - w);
    if (v == std::numeric_limits<std::int64_t>::min()) return "std::numeric_limits<std::int64_t>::min()";
    std::snprintf(buf, sizeof buf, "%lld%s", static_cast<long long>(v),
                  v > INT32_MAX || v < INT32_MIN ? "LL" : "");
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%llu%s", static_cast<unsigned long long>(b), w == 64 ? "ull" : "u");
  return buf;
}

namespace {

const char* binary_op(Op op) {
  switch (op) {
    case Op::Add: return " + ";
    case Op::Sub: return " - ";
    case Op::Mul: return " * ";
    case Op::Div: return " / ";
    case Op::Rem: return " % ";
    case Op::BitAnd: return " & ";
    case Op::BitOr: return " | ";
    case Op::BitXor: return " ^ ";
    case Op::Shl: return " << ";
    case Op::Shr: return " >> ";
    case Op::LogAnd: return " && ";
    case Op::LogOr: return " || ";
    case Op::Eq: return " == ";
    case Op::Ne: return " != ";
    case Op::Lt: return " < ";
    case Op::Le: return " <= ";
    case Op::Gt: return " > ";
    case Op::Ge: return " >= ";
    default: return nullptr;
  }
}

const char* function_name(Op op) {
  switch (op) {
    case Op::Abs: return "abs";
    case Op::Floor: return "floor";
    case Op::Ceil: return "ceil";
    case Op::Trunc: return "trunc";
    case Op::Round: return "round";
    case Op::Sqrt: return "sqrt";
    case Op::IsNan: return "isnan";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::FloorDiv: return "floordiv";
    case Op::FloorMod: return "floormod";
    case Op::Select: return "select";
    default: return nullptr;
  }
}

const char* atomic_name(AtomicOp op) {
  switch (op) {
    case AtomicOp::Add: return "atomic_add";
    case AtomicOp::Sub: return "atomic_sub";
    case AtomicOp::Min: return "atomic_min";
    case AtomicOp::Max: return "atomic_max";
    case AtomicOp::And: return "atomic_and";
    case AtomicOp::Or: return "atomic_or";
    case AtomicOp::Xor: return "atomic_xor";
    case AtomicOp::Exchange: return "atomic_exchange";
    case AtomicOp::Cas: return "atomic_cas";
  }
  return "?";
}

struct Printer {
  const Program& p;
  std::ostringstream out;

  std::string e(const Expr& x) {
    if (const char* b = binary_op(x.op)) return "(" + e(x.kids[0]) + b + e(x.kids[1]) + ")";
    if (const char* f = function_name(x.op)) {
      std::string s = std::string(f) + "(";
      for (std::size_t k = 0; k < x.kids.size(); ++k) s += (k ? ", " : "") + e(x.kids[k]);
      return s + ")";
    }
    switch (x.op) {
      case Op::Const: return "cast<" + short_type(x.type) + ">(" + value_text(x.type, x.bits) + ")";
      case Op::Index: return "i";
      case Op::LoopIndex: return "j" + std::to_string(x.ref);
      case Op::VarRef: return "v" + std::to_string(x.ref);
      case Op::LoadIn: {
        std::string a = "in" + std::to_string(x.ref);
        std::string idx = x.kids[0].type == DType::I64 ? e(x.kids[0]) : "cast<i64>(" + e(x.kids[0]) + ")";
        return a + "[floormod(" + idx + ", " + a + ".size())]";
      }
      case Op::LoadOut: return "Value(out" + std::to_string(x.ref) + "[i])";
      case Op::ScalarParam: return "s";
      case Op::LocalId: return "g.local_id()";
      case Op::GroupId: return "g.group_id()";
      case Op::SharedLoad: {
        if (x.ref == 0) return "Value(sh[g.local_id()])";
        std::string idx = x.kids[0].type == DType::I64 ? e(x.kids[0]) : "cast<i64>(" + e(x.kids[0]) + ")";
        return "Value(sh[floormod(" + idx + ", " + std::to_string(kGroupSize) + ")])";
      }
      case Op::Neg: return "(-" + e(x.kids[0]) + ")";
      case Op::BitNot: return "(~" + e(x.kids[0]) + ")";
      case Op::Not: return "(!" + e(x.kids[0]) + ")";
      case Op::Cast: return "cast<" + short_type(x.type) + ">(" + e(x.kids[0]) + ")";
      default: return "?";
    }
  }

  void line(int ind, const std::string& s) { out << std::string(static_cast<std::size_t>(ind) * 2, ' ') << s << "\n"; }

  std::string atomic(const Stmt& st, const std::string& array, const std::string& idx) {
    std::string args = array + ", " + idx + ", ";
    if (st.aop == AtomicOp::Cas) args += e(st.c) + ", ";
    return std::string(atomic_name(st.aop)) + "(" + args + e(st.b) + ")";
  }

  void block(const std::vector<Stmt>& b, int ind) {
    for (const auto& st : b) stmt(st, ind);
  }

  void stmt(const Stmt& st, int ind) {
    std::string v = "v" + std::to_string(st.ref);
    switch (st.kind) {
      case StmtKind::Store: line(ind, "out" + std::to_string(st.ref) + "[i] = " + e(st.a) + ";"); break;
      case StmtKind::Decl: line(ind, "Var " + v + " = " + e(st.a) + ";  // " + short_type(p.var_types[st.ref])); break;
      case StmtKind::Assign: line(ind, v + " = " + e(st.a) + ";"); break;
      case StmtKind::If:
        line(ind, "if_(" + e(st.a) + ", [&] {");
        block(st.body, ind + 1);
        if (!st.else_body.empty()) {
          line(ind, "}, [&] {");
          block(st.else_body, ind + 1);
        }
        line(ind, "});");
        break;
      case StmtKind::For:
        line(ind, "for_range(0, " + e(st.a) + ", [&](Index j" + std::to_string(st.ref) + ") {");
        block(st.body, ind + 1);
        line(ind, "});");
        break;
      case StmtKind::While:
        line(ind, "Var " + v + " = cast<i32>(0);");
        line(ind, "while_([&] { return " + v + " < " + std::to_string(st.bound) + " && " + e(st.a) + "; }, [&] {");
        line(ind + 1, v + " += 1;");
        block(st.body, ind + 1);
        line(ind, "});");
        break;
      case StmtKind::Break: line(ind, "if_(" + e(st.a) + ", [] { break_(); });"); break;
      case StmtKind::Continue: line(ind, "if_(" + e(st.a) + ", [] { continue_(); });"); break;
      case StmtKind::AtomicShared: {
        std::string idx = st.a.type == DType::I64 ? e(st.a) : "cast<i64>(" + e(st.a) + ")";
        line(ind, atomic(st, "at0", "floormod(" + idx + ", at0.size())") + ";");
        break;
      }
      case StmtKind::AtomicPrivate: {
        std::string call = atomic(st, "out" + std::to_string(st.ref), "i");
        if (st.target >= 0)
          line(ind, "v" + std::to_string(st.target) + " = cast<" + short_type(p.var_types[st.target]) + ">(" + call + ");");
        else
          line(ind, call + ";");
        break;
      }
      case StmtKind::Barrier: line(ind, "g.barrier();"); break;
      case StmtKind::SharedStore: line(ind, "sh[g.local_id()] = " + e(st.a) + ";"); break;
      case StmtKind::Reduce: {
        const char* f = st.aop == AtomicOp::Add ? "reduce_add" : st.aop == AtomicOp::Min ? "reduce_min" : "reduce_max";
        line(ind, "Var " + v + " = g." + f + "(" + e(st.a) + ");  // " + short_type(p.var_types[st.ref]));
        break;
      }
    }
  }
};

}  // namespace

std::string to_cpp(const Program& p) {
  Printer pr{p, {}};
  pr.out << "// seed " << p.seed << ": out0 " << short_type(p.arrays[0]) << ", out1 " << short_type(p.arrays[1])
         << ", in0 " << short_type(p.arrays[2]) << ", in1 " << short_type(p.arrays[3]) << ", at0 "
         << short_type(p.arrays[4]) << ", s " << short_type(p.scalar) << " = " << value_text(p.scalar, p.scalar_bits)
         << ", n = " << p.n << "\n";
  pr.out << "auto k = tack::kernel(\"fuzz_" << p.seed << "\", "
         << (p.fp_contract ? "" : "tack::KernelOptions{.fp_contract = false}, ")
         << "[](Array out0, Array out1, Array in0, Array in1, Array at0, Scalar s) {\n";
  if (p.workgroup) {
    pr.line(1, "workgroup_for(out0.size() / " + std::to_string(kGroupSize) + ", [&](Group g) {");
    pr.line(2, "Value i = g.global_id();");
    pr.line(2, "SharedArray sh = g.shared<" + cpp_type(p.shared_type) + ">(" + std::to_string(kGroupSize) + ");");
  } else {
    pr.line(1, "parallel_for(out0.size(), [&](Index i) {");
  }
  pr.block(p.body, 2);
  pr.line(1, "});");
  pr.out << "});\n";
  return pr.out.str();
}

}  // namespace tack::fuzz
