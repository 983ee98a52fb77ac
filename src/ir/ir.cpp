// Node factories and the tables behind OpCode, AtomicOp and ReduceOp.
#include "ir/ir.hpp"

#include "ir/check.hpp"

namespace tack::ir {
namespace {

struct OpInfo {
  int arity;
  const char* name;
  OpCategory category;
};

constexpr OpInfo kOps[] = {
#define TACK_OP(Name, arity, spelling, category) {arity, spelling, OpCategory::category},
#include "ir/ops.def"
};

template <class T, class... A>
Expr expr(A&&... a) {
  return Expr(std::make_shared<const T>(std::forward<A>(a)...));
}
template <class T, class... A>
Stmt stmt(A&&... a) {
  return Stmt(std::make_shared<const T>(std::forward<A>(a)...));
}

}  // namespace

int op_arity(OpCode op) { return kOps[static_cast<int>(op)].arity; }
const char* op_name(OpCode op) { return kOps[static_cast<int>(op)].name; }
OpCategory op_category(OpCode op) { return kOps[static_cast<int>(op)].category; }

bool is_transcendental(OpCode op) {
  switch (op) {
    case OpCode::Exp:
    case OpCode::Exp2:
    case OpCode::Log:
    case OpCode::Log2:
    case OpCode::Log10:
    case OpCode::Sin:
    case OpCode::Cos:
    case OpCode::Tan:
    case OpCode::Asin:
    case OpCode::Acos:
    case OpCode::Atan:
    case OpCode::Sinh:
    case OpCode::Cosh:
    case OpCode::Tanh:
    case OpCode::Atan2:
    case OpCode::Pow: return true;
    default: return false;
  }
}

const char* atomic_name(AtomicOp op) {
  static const char* names[] = {"add", "sub", "min", "max", "and", "or", "xor", "exchange", "cas"};
  return names[static_cast<int>(op)];
}
const char* reduce_name(ReduceOp op) {
  static const char* names[] = {"add", "min", "max"};
  return names[static_cast<int>(op)];
}
const char* param_kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::Array: return "Array";
    case ParamKind::Scalar: return "Scalar";
    case ParamKind::Texture: return "Texture3D";
  }
  return "?";
}

std::string SourceLoc::str() const {
  if (!file) return "";
  std::string f = file;
  return f + ":" + std::to_string(line);
}

Expr Const::make_int(Type t, std::int64_t v) { return expr<Const>(t, v, static_cast<double>(v)); }
Expr Const::make_float(Type t, double v) { return expr<Const>(t, 0, v); }
Expr Const::make_bool(bool v) { return expr<Const>(Type::strong(DType::Bool), v ? 1 : 0, v ? 1.0 : 0.0); }
Expr ScalarParam::make(Type t, int param) { return expr<ScalarParam>(t, param); }
Expr ArrayDim::make(int param, int dim) { return expr<ArrayDim>(param, dim); }
Expr LoopIndex::make(int dim) { return expr<LoopIndex>(dim); }
Expr GroupValue::make(GroupField f) { return expr<GroupValue>(f); }
Expr LetRef::make(Type t, int id) { return expr<LetRef>(t, id); }
Expr VarRef::make(Type t, int id) { return expr<VarRef>(t, id); }
Expr Load::make(Type t, ArrayRef a, Expr index, int subscripts) {
  TACK_CHECK(index);
  return expr<Load>(t, a, std::move(index), subscripts);
}
Expr Op::make(Type t, OpCode op, Expr a, Expr b, Expr c) {
  int n = op_arity(op);
  TACK_CHECK(a && (n < 2) == !b && (n < 3) == !c);
  return expr<Op>(t, op, std::array<Expr, 3>{std::move(a), std::move(b), std::move(c)});
}
Expr Select::make(Type t, Expr c, Expr a, Expr b) {
  TACK_CHECK(c && a && b);
  return expr<Select>(t, std::move(c), std::move(a), std::move(b));
}
Expr Cast::make(Type t, Expr v) {
  TACK_CHECK(v);
  return expr<Cast>(t, std::move(v));
}
Expr TexSample::make(Type t, int param, Expr u, Expr v, Expr w) {
  return expr<TexSample>(t, param, std::move(u), std::move(v), std::move(w));
}

Stmt Block::make(std::vector<Stmt> stmts, SourceLoc loc) { return stmt<Block>(loc, std::move(stmts)); }
Stmt Let::make(int id, Expr value, SourceLoc loc) {
  TACK_CHECK(value);
  return stmt<Let>(loc, id, std::move(value));
}
Stmt DeclareVar::make(int id, Expr init, SourceLoc loc) {
  TACK_CHECK(init);
  return stmt<DeclareVar>(loc, id, std::move(init));
}
Stmt Assign::make(int id, Expr value, SourceLoc loc) {
  TACK_CHECK(value);
  return stmt<Assign>(loc, id, std::move(value));
}
Stmt Store::make(ArrayRef a, Expr index, int subscripts, Expr value, SourceLoc loc) {
  TACK_CHECK(index && value);
  return stmt<Store>(loc, a, std::move(index), subscripts, std::move(value));
}
Stmt Atomic::make(AtomicOp op, ArrayRef a, Expr index, int subscripts, Expr value, Expr compare, int result,
                  SourceLoc loc) {
  TACK_CHECK(index && value && (op == AtomicOp::Cas) == static_cast<bool>(compare));
  return stmt<Atomic>(loc, op, a, std::move(index), subscripts, std::move(value), std::move(compare), result);
}
Stmt If::make(Expr cond, Stmt then_case, Stmt else_case, SourceLoc loc) {
  TACK_CHECK(cond && then_case);
  return stmt<If>(loc, std::move(cond), std::move(then_case), std::move(else_case));
}
Stmt For::make(int index, Expr lo, Expr hi, Stmt body, SourceLoc loc) {
  TACK_CHECK(lo && hi && body);
  return stmt<For>(loc, index, std::move(lo), std::move(hi), std::move(body));
}
Stmt Loop::make(Stmt body, SourceLoc loc) {
  TACK_CHECK(body);
  return stmt<Loop>(loc, std::move(body));
}
Stmt Break::make(SourceLoc loc) { return stmt<Break>(loc); }
Stmt Continue::make(SourceLoc loc) { return stmt<Continue>(loc); }
Stmt Barrier::make(SourceLoc loc) { return stmt<Barrier>(loc); }
Stmt GroupReduce::make(ReduceOp op, Expr value, int result, SourceLoc loc) {
  TACK_CHECK(value);
  return stmt<GroupReduce>(loc, op, std::move(value), result);
}
Stmt Print::make(std::string format, std::vector<Expr> args, SourceLoc loc) {
  for (const Expr& a : args) TACK_CHECK(a);
  return stmt<Print>(loc, std::move(format), std::move(args));
}

int print_placeholders(const std::string& format) {
  int n = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    const char next = i + 1 < format.size() ? format[i + 1] : '\0';
    if (c == '{' && next == '{') {
      ++i;
    } else if (c == '}' && next == '}') {
      ++i;
    } else if (c == '{' && next == '}') {
      ++n;
      ++i;
    } else if (c == '{' || c == '}') {
      return -1;
    }
  }
  return n;
}

}  // namespace tack::ir
