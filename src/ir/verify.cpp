// Checks typed Tack IR against the rules of ir.hpp and the operator categories of ops.def.
#include "ir/verify.hpp"

#include "ir/check.hpp"
#include "ir/printer.hpp"

#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace tack::ir {
namespace {

// The first broken rule, carried out of the walk; verify_ok turns it into its message.
struct Broken {
  std::string message;
};

// A compound statement prints its whole body; the rule broken is about its first line.
std::string header_line(const Stmt& s) {
  std::string text = to_string(s);
  std::size_t nl = text.find('\n');
  if (nl == std::string::npos) return text;
  return text.substr(0, nl) + (nl + 1 < text.size() ? " ..." : "");
}

std::string let_name(int id) { return "t" + std::to_string(id); }
std::string var_name(int id) { return "v" + std::to_string(id); }

bool numeric(DType t) { return t != DType::Bool; }

// Integers are held sign- or zero-extended from their width and f32 values must be
// f32 values: every reader (printer, const_bits, backends) relies on one spelling.
bool canonical(const Const* c) {
  DType t = c->type.dtype;
  switch (t) {
    case DType::Bool: return c->i == 0 || c->i == 1;
    case DType::F32: return std::isnan(c->f) || static_cast<double>(static_cast<float>(c->f)) == c->f;
    case DType::F64:
    case DType::I64:
    case DType::U64: return true;
    default: break;
  }
  int bits = dtype_bits(t);
  if (is_signed_int(t)) {
    std::int64_t half = std::int64_t{1} << (bits - 1);
    return c->i >= -half && c->i < half;
  }
  return c->i >= 0 && c->i < (std::int64_t{1} << bits);
}

class Verifier {
 public:
  explicit Verifier(const Kernel& k)
      : k_(k),
        let_visible_(k.lets.size()),
        let_bound_(k.lets.size()),
        var_visible_(k.vars.size()),
        var_bound_(k.vars.size()) {}

  void run() {
    if (!k_.typed) fail("the kernel is not typed; verify checks typed IR only");
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const Param& p = k_.params[i];
      if (p.kind == ParamKind::Texture && p.dtype != DType::F32)
        fail("Texture3D parameter %" + std::to_string(i) + " must have dtype f32");
    }
    if (k_.dims.empty()) fail("the kernel has no launch dims");
    in_dims_ = true;
    for (std::size_t i = 0; i < k_.dims.size(); ++i) {
      dim_ = static_cast<int>(i);
      seen_.clear();
      expr(k_.dims[i]);
      if (k_.dims[i]->type != Type::strong(DType::I64)) fail("a launch dim must be i64", k_.dims[i]);
    }
    in_dims_ = false;
    dim_ = -1;
    stmt(k_.body);
  }

 private:
  // ---- failing ----------------------------------------------------------

  [[noreturn]] void fail(const std::string& what) const {
    std::string msg = "kernel '" + k_.name + "': " + what;
    if (at_) {
      msg += "\n  in statement: " + header_line(at_);
    } else if (dim_ >= 0) {
      msg += "\n  in launch dim " + std::to_string(dim_);
    }
    throw Broken{msg};
  }
  [[noreturn]] void fail(const std::string& what, const Expr& e) const { fail(what + "\n  node: " + to_string(e)); }
  [[noreturn]] void fail(const std::string& what, const Stmt& s) const { fail(what + "\n  node: " + header_line(s)); }

  // ---- scopes -----------------------------------------------------------

  // Names bound inside f (an If branch, a loop body) are not visible after it. A plain
  // nested Block is no scope: passes splice Blocks into their parents freely.
  template <class F>
  void scoped(F&& f) {
    std::size_t lets = let_scope_.size(), vars = var_scope_.size();
    f();
    for (; let_scope_.size() > lets; let_scope_.pop_back()) let_visible_[let_scope_.back()] = false;
    for (; var_scope_.size() > vars; var_scope_.pop_back()) var_visible_[var_scope_.back()] = false;
  }

  void bind_let(int id, Type t, const Stmt& s) {
    if (id < 0 || static_cast<std::size_t>(id) >= k_.lets.size())
      fail("Let id " + let_name(id) + " is outside Kernel::lets (size " + std::to_string(k_.lets.size()) + ")", s);
    if (let_bound_[id]) fail("Let id " + let_name(id) + " is bound twice", s);
    if (k_.lets[id] != t)
      fail(let_name(id) + " is bound to a " + to_string(t) + " but Kernel::lets says " + to_string(k_.lets[id]), s);
    let_bound_[id] = let_visible_[id] = true;
    let_scope_.push_back(id);
  }

  void declare_var(int id, Type t, const Stmt& s) {
    if (id < 0 || static_cast<std::size_t>(id) >= k_.vars.size())
      fail("Var id " + var_name(id) + " is outside Kernel::vars (size " + std::to_string(k_.vars.size()) + ")", s);
    if (var_bound_[id]) fail("Var " + var_name(id) + " is declared twice", s);
    if (k_.vars[id] != t)
      fail(var_name(id) + " is declared as a " + to_string(t) + " but Kernel::vars says " + to_string(k_.vars[id]), s);
    var_bound_[id] = var_visible_[id] = true;
    var_scope_.push_back(id);
  }

  // A Var read or assigned must be declared on every path to here, like a Let.
  template <class Node>
  void use_var(int id, Type t, const Node& at) {
    if (id < 0 || static_cast<std::size_t>(id) >= k_.vars.size())
      fail("Var id " + var_name(id) + " is outside Kernel::vars (size " + std::to_string(k_.vars.size()) + ")", at);
    if (!var_visible_[id]) fail(var_name(id) + " is used where its DeclareVar is not in scope", at);
    if (k_.vars[id] != t)
      fail(var_name(id) + " is used as a " + to_string(t) + " but Kernel::vars says " + to_string(k_.vars[id]), at);
  }

  // ---- statements -------------------------------------------------------

  void stmt(const Stmt& s) {
    if (!s) fail("a statement is missing");
    // Each statement's expressions are checked before its nested statements, so the
    // context and the memo of checked nodes are the current statement's.
    at_ = s;
    seen_.clear();
    switch (s->kind) {
      case StmtKind::Block:
        for (const Stmt& c : s.as<Block>()->stmts) stmt(c);
        return;
      case StmtKind::Let: {
        auto n = s.as<Let>();
        expr(n->value, /*whole_let_value=*/true);
        bind_let(n->id, n->value->type, s);
        return;
      }
      case StmtKind::DeclareVar: {
        auto n = s.as<DeclareVar>();
        expr(n->init);
        declare_var(n->id, n->init->type, s);
        return;
      }
      case StmtKind::Assign: {
        auto n = s.as<Assign>();
        expr(n->value);
        use_var(n->id, n->value->type, s);
        return;
      }
      case StmtKind::Store: {
        auto n = s.as<Store>();
        DType t = array_access(n->array, n->index, n->subscripts, s);
        expr(n->value);
        if (n->value->type.dtype != t)
          fail("the stored value is a " + to_string(n->value->type) + " but the array holds " +
                   std::string(dtype_name(t)),
               s);
        return;
      }
      case StmtKind::Atomic: {
        auto n = s.as<Atomic>();
        if (n->array.space == ArrayRef::Space::Local) fail("an atomic on a local array", s);
        DType t = array_access(n->array, n->index, n->subscripts, s);
        expr(n->value);
        if (n->value->type.dtype != t)
          fail("the atomic's value is a " + to_string(n->value->type) + " but the array holds " +
                   std::string(dtype_name(t)),
               s);
        if ((n->op == AtomicOp::Cas) != static_cast<bool>(n->compare))
          fail("only atomic_cas has a compare operand, and it must have one", s);
        if (n->compare) {
          expr(n->compare);
          if (n->compare->type.dtype != t) fail("atomic_cas compares with a value of another dtype", s);
        }
        bool bitwise = n->op == AtomicOp::And || n->op == AtomicOp::Or || n->op == AtomicOp::Xor;
        if (bitwise && is_float(t)) fail("a bitwise atomic needs an integer array", s);
        bind_let(n->result, Type::strong(t), s);
        return;
      }
      case StmtKind::If: {
        auto n = s.as<If>();
        expr(n->cond);
        if (n->cond->type != Type::strong(DType::Bool)) fail("an If condition must be bool", n->cond);
        scoped([&] { stmt(n->then_case); });
        if (n->else_case) scoped([&] { stmt(n->else_case); });
        return;
      }
      case StmtKind::For: {
        auto n = s.as<For>();
        expr(n->lo);
        expr(n->hi);
        if (n->lo->type != Type::strong(DType::I64)) fail("a For bound must be i64", n->lo);
        if (n->hi->type != Type::strong(DType::I64)) fail("a For bound must be i64", n->hi);
        scoped([&] {
          bind_let(n->index, Type::strong(DType::I64), s);
          ++loop_depth_;
          stmt(n->body);
          --loop_depth_;
        });
        return;
      }
      case StmtKind::Loop:
        scoped([&] {
          ++loop_depth_;
          stmt(s.as<Loop>()->body);
          --loop_depth_;
        });
        return;
      case StmtKind::Break:
      case StmtKind::Continue:
        if (loop_depth_ == 0) fail("break/continue outside a For or Loop", s);
        return;
      case StmtKind::Barrier:
        if (k_.launch != LaunchKind::Workgroup) fail("a barrier outside a workgroup kernel", s);
        return;
      case StmtKind::GroupReduce: {
        auto n = s.as<GroupReduce>();
        if (k_.launch != LaunchKind::Workgroup) fail("a group reduction outside a workgroup kernel", s);
        expr(n->value);
        if (!numeric(n->value->type.dtype)) fail("a group reduction needs a numeric value", s);
        bind_let(n->result, n->value->type, s);
        return;
      }
      case StmtKind::Print: {
        auto n = s.as<Print>();
        for (const Expr& a : n->args) expr(a);
        if (print_placeholders(n->format) != static_cast<int>(n->args.size()))
          fail("a print whose format's {} do not match its arguments", s);
        return;
      }
    }
    fail("unknown statement kind", s);
  }

  // Checks a Load's, Store's or Atomic's target and index; returns the element dtype.
  template <class Node>
  DType array_access(ArrayRef a, const Expr& index, int subscripts, const Node& owner) {
    int rank = 1;
    DType t = DType::F32;
    if (a.space == ArrayRef::Space::Param) {
      if (a.index < 0 || static_cast<std::size_t>(a.index) >= k_.params.size())
        fail("array parameter %" + std::to_string(a.index) + " does not exist", owner);
      const Param& p = k_.params[a.index];
      if (p.kind != ParamKind::Array)
        fail("parameter %" + std::to_string(a.index) + " is a " + param_kind_name(p.kind) + ", not an Array", owner);
      rank = p.rank;
      t = p.dtype;
    } else if (a.space == ArrayRef::Space::Local) {
      if (a.index < 0 || static_cast<std::size_t>(a.index) >= k_.locals.size())
        fail("local array " + std::to_string(a.index) + " does not exist", owner);
      t = k_.locals[a.index].dtype;
    } else {
      if (k_.launch != LaunchKind::Workgroup) fail("a shared array outside a workgroup kernel", owner);
      if (a.index < 0 || static_cast<std::size_t>(a.index) >= k_.shared.size())
        fail("shared array " + std::to_string(a.index) + " does not exist", owner);
      t = k_.shared[a.index].dtype;
    }
    if (subscripts != 0 && subscripts != rank)
      fail(std::to_string(subscripts) + " subscripts for an array of rank " + std::to_string(rank), owner);
    expr(index);
    if (index->type != Type::strong(DType::I64)) fail("an array index must be i64", index);
    return t;
  }

  // ---- expressions ------------------------------------------------------

  void expr(const Expr& e, bool whole_let_value = false) {
    if (!e) fail("an expression is missing");
    // Checked before the memo: the same Load node met a second time is still misplaced.
    if (e->kind == ExprKind::Load && !whole_let_value) fail("a Load must be the whole value of a Let", e);
    // Within one statement the scope is fixed, so a shared node needs checking once;
    // without this a DAG of shared subtrees would be walked exponentially often.
    if (!seen_.insert(e.get()).second) return;
    if (!e->type.is_strong()) fail("the expression's type is not Strong", e);
    DType t = e->type.dtype;
    switch (e->kind) {
      case ExprKind::Const:
        if (!canonical(e.as<Const>())) fail("a constant's value is not canonical for its dtype", e);
        return;
      case ExprKind::ScalarParam: {
        int p = e.as<ScalarParam>()->param;
        param(p, ParamKind::Scalar, e);
        if (k_.params[p].dtype != t) fail("a scalar parameter read with another dtype than its own", e);
        return;
      }
      case ExprKind::ArrayDim: {
        auto n = e.as<ArrayDim>();
        if (n->param >= 0 && static_cast<std::size_t>(n->param) < k_.params.size() &&
            k_.params[n->param].kind == ParamKind::Texture) {
          if (n->dim < 0 || n->dim > 2) fail("a texture extent other than width, height or depth", e);
        } else {
          param(n->param, ParamKind::Array, e);
          if (n->dim != ArrayDim::kSize && (n->dim < 0 || n->dim >= k_.params[n->param].rank))
            fail("an extent beyond the array's rank", e);
        }
        if (t != DType::I64) fail("an array extent must be i64", e);
        return;
      }
      case ExprKind::LoopIndex: {
        int dim = e.as<LoopIndex>()->dim;
        if (in_dims_) fail("a launch dim cannot depend on the loop index", e);
        if (dim < 0 || static_cast<std::size_t>(dim) >= k_.dims.size()) fail("a loop index beyond the launch dims", e);
        if (t != DType::I64) fail("a loop index must be i64", e);
        return;
      }
      case ExprKind::GroupValue:
        if (in_dims_) fail("a launch dim cannot depend on the work-item", e);
        if (k_.launch != LaunchKind::Workgroup) fail("a workgroup value outside a workgroup kernel", e);
        if (t != DType::I64) fail("a workgroup value must be i64", e);
        return;
      case ExprKind::LetRef: {
        int id = e.as<LetRef>()->id;
        if (id < 0 || static_cast<std::size_t>(id) >= k_.lets.size())
          fail("Let id " + let_name(id) + " is outside Kernel::lets (size " + std::to_string(k_.lets.size()) + ")", e);
        if (!let_visible_[id]) fail(let_name(id) + " is used where it is not defined on every path", e);
        if (k_.lets[id] != e->type)
          fail(
              let_name(id) + " is read as a " + to_string(e->type) + " but Kernel::lets says " + to_string(k_.lets[id]),
              e);
        return;
      }
      case ExprKind::VarRef: use_var(e.as<VarRef>()->id, e->type, e); return;
      case ExprKind::Load: {
        auto n = e.as<Load>();
        DType a = array_access(n->array, n->index, n->subscripts, e);
        if (a != t) fail("a load's dtype differs from its array's", e);
        return;
      }
      case ExprKind::Op: op(e.as<Op>(), e); return;
      case ExprKind::Select: {
        auto n = e.as<Select>();
        expr(n->cond);
        expr(n->if_true);
        expr(n->if_false);
        if (n->cond->type != Type::strong(DType::Bool)) fail("a select condition must be bool", e);
        if (n->if_true->type != e->type || n->if_false->type != e->type)
          fail("a select's branches must have the select's type", e);
        return;
      }
      case ExprKind::Cast: expr(e.as<Cast>()->value); return;
      case ExprKind::TexSample: {
        auto n = e.as<TexSample>();
        param(n->param, ParamKind::Texture, e);
        for (const Expr* c : {&n->u, &n->v, &n->w}) {
          expr(*c);
          if ((*c)->type != Type::strong(DType::F32)) fail("texture coordinates must be f32", e);
        }
        if (t != DType::F32) fail("a texture sample must be f32", e);
        return;
      }
    }
    fail("unknown expression kind", e);
  }

  void param(int p, ParamKind kind, const Expr& e) {
    if (p < 0 || static_cast<std::size_t>(p) >= k_.params.size())
      fail("parameter %" + std::to_string(p) + " does not exist", e);
    if (k_.params[p].kind != kind)
      fail("parameter %" + std::to_string(p) + " is a " + param_kind_name(k_.params[p].kind) + ", not a " +
               param_kind_name(kind),
           e);
  }

  void op(const Op* n, const Expr& e) {
    int arity = n->arity();
    for (int i = 0; i < 3; ++i) {
      if (static_cast<bool>(n->args[i]) != (i < arity)) fail("the operand count differs from the operator's arity", e);
    }
    for (int i = 0; i < arity; ++i) expr(n->args[i]);
    DType a = n->args[0]->type.dtype, r = e->type.dtype;
    for (int i = 1; i < arity; ++i) {
      if (n->args[i]->type.dtype != a) fail("the operands of an Op must have one dtype", e);
    }
    bool ok = false;
    const char* rule = "";
    switch (op_category(n->op)) {
      case OpCategory::Arith:
      case OpCategory::Signed:
        ok = numeric(a) && r == a;
        rule = "numeric operands and a result of their dtype";
        break;
      case OpCategory::Bits:
        ok = (is_integer(a) || a == DType::Bool) && r == a;
        rule = "integer or bool operands and a result of their dtype";
        break;
      case OpCategory::Shift:
        ok = is_integer(a) && r == a;
        rule = "integer operands and a result of their dtype";
        break;
      case OpCategory::Compare:
        ok = r == DType::Bool;
        rule = "a bool result";
        break;
      case OpCategory::Logic:
        ok = a == DType::Bool && r == DType::Bool;
        rule = "bool operands and a bool result";
        break;
      case OpCategory::Float:
        ok = is_float(a) && r == a;
        rule = "float operands and a result of their dtype";
        break;
      case OpCategory::Classify:
        ok = is_float(a) && r == DType::Bool;
        rule = "a float operand and a bool result";
        break;
      case OpCategory::Quotient: rule = "lowering to div by infer_types: typed IR never holds it"; break;
    }
    if (!ok) fail(std::string("'") + op_name(n->op) + "' needs " + rule, e);
  }

  const Kernel& k_;
  std::vector<char> let_visible_, let_bound_, var_visible_, var_bound_;
  std::vector<int> let_scope_, var_scope_;  // ids in binding order, unwound by scoped()
  std::unordered_set<const ExprNode*> seen_;
  Stmt at_;       // the statement whose expressions are being checked, for messages
  int dim_ = -1;  // or the launch dim
  int loop_depth_ = 0;
  bool in_dims_ = false;
};

}  // namespace

bool verify_ok(const Kernel& k, std::string* why) {
  try {
    Verifier(k).run();
    return true;
  } catch (const Broken& b) {
    if (why) *why = b.message;
    return false;
  }
}

void verify(const Kernel& k) {
  std::string why;
  if (verify_ok(k, &why)) return;
  std::string msg = "IR verification failed: " + why;
  detail::internal_error(__FILE__, __LINE__, msg.c_str());
}

}  // namespace tack::ir
