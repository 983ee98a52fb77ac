// Type inference. Phase 1 finds each Var's type as a fixed point of everything
// assigned to it (the lattice only rises, so it terminates); phase 2 rebuilds the
// IR with Strong types and explicit Casts, raising user errors with the line of
// the statement being typed.
#include "passes/infer_types.hpp"

#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "ir/scalar_ops.hpp"
#include "passes/promote.hpp"

#include <tack/error.hpp>

#include <limits>
#include <string>
#include <unordered_map>

namespace tack::passes {
namespace {

using namespace ir;

std::string tname(Type t) {
  return t.is_weak() ? "a " + std::string(dtype_name(t.dtype)) + " literal" : std::string(dtype_name(t.dtype));
}

class Inference {
 public:
  Inference(const Kernel& k, const std::vector<ParamType>& params, const DeviceLimits& device)
      : k_(k), params_(params), device_(device) {}

  Kernel run() {
    if (params_.size() != k_.params.size()) TACK_UNREACHABLE("infer_types needs one ParamType per parameter");
    check_required_ranks();
    let_types_.assign(k_.lets.size(), Type::unknown());
    var_types_.assign(k_.vars.size(), Type::unknown());
    var_locs_.assign(k_.vars.size(), SourceLoc{});

    // Phase 1: Var types as a fixed point, tolerating errors that later rounds may resolve.
    tolerant_ = true;
    const size_t max_rounds = 4 * k_.vars.size() + 4;
    for (size_t round = 0; round < max_rounds; ++round) {
      std::vector<Type> before = var_types_;
      type_memo_.clear();
      scan(k_.body);
      if (before == var_types_) break;
    }
    for (size_t i = 0; i < var_types_.size(); ++i) {
      Type& t = var_types_[i];
      if (t.is_weak()) t = Type::strong(t.dtype);
      if (t.is_unknown()) {
        loc_ = var_locs_[i];
        fail(
            "cannot infer the type of this Var: nothing with a type is ever assigned to it; initialize it with a "
            "literal or cast<T>()");
      }
    }

    // Phase 2: rebuild with Strong types.
    tolerant_ = false;
    type_memo_.clear();
    Kernel out = k_;
    for (size_t i = 0; i < k_.params.size(); ++i) {
      out.params[i].dtype = params_[i].dtype;
      out.params[i].rank = params_[i].rank;
    }
    loc_ = k_.loc;
    for (Expr& d : out.dims)
      d = index(
          d, k_.launch == LaunchKind::Workgroup ? "the number of groups of workgroup_for" : "the parallel_for range");
    out.body = build(k_.body);
    out.vars = var_types_;
    out.lets = let_types_;
    for (Type& t : out.lets)
      if (t.is_unknown()) t = Type::strong(DType::I32);  // a Let removed before use; keep the table total
    out.typed = true;
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    std::string where = loc_.str();
    throw TypeError("kernel '" + k_.name + "'" + (where.empty() ? "" : " at " + where) + ": " + msg);
  }
  [[noreturn]] void fail_arg(const std::string& msg) const {
    std::string where = loc_.str();
    throw InvalidArgument("kernel '" + k_.name + "'" + (where.empty() ? "" : " at " + where) + ": " + msg);
  }
  [[noreturn]] void fail_index(const std::string& msg) const {
    std::string where = loc_.str();
    throw IndexError("kernel '" + k_.name + "'" + (where.empty() ? "" : " at " + where) + ": " + msg);
  }

  // The ranks the traced code relies on (a Python `h, w = a.shape`), refused at the line that relies on them.
  void check_required_ranks() {
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const Param& p = k_.params[i];
      if (p.kind != ParamKind::Array || p.required_rank < 0 || params_[i].rank == p.required_rank) continue;
      loc_ = p.required_rank_loc;
      fail_arg("argument " + std::to_string(i) + " has rank " + std::to_string(params_[i].rank) +
               " here, but this line needs rank " + std::to_string(p.required_rank) + ": it unpacks the shape into " +
               std::to_string(p.required_rank) + " names");
    }
  }

  // Integer true division computes in f64; a device without f64 refuses it here, where the line and the
  // reason are known (a Cast to f64 in typed IR could not say which `/` made it).
  void check_true_division(Type operands) const {
    if (is_float(operands.dtype) || device_.f64) return;
    // C++'s words; Python's message says tack.cast and // (python/src/python_words.cpp).
    fail("true division of integers (" + tname(operands) + ") gives f64, as in NumPy, but the " + device_.backend +
         " backend has no f64: cast an operand with cast<float>() first for an f32 quotient, or use floor division "
         "(floordiv()) for an integer one");
  }
  Type bad(const std::string& msg) {
    if (tolerant_) return Type::unknown();
    fail(msg);
  }

  DType array_dtype(ArrayRef a) const {
    if (a.space == ArrayRef::Space::Local) return k_.locals[a.index].dtype;
    return a.space == ArrayRef::Space::Param ? params_[a.index].dtype : k_.shared[a.index].dtype;
  }

  // ---- phase 1 and shared: the type of an expression ----

  Type type_of(const Expr& e) {
    auto it = type_memo_.find(e.get());
    if (it != type_memo_.end()) return it->second;
    Type t = compute_type(e);
    type_memo_.emplace(e.get(), t);
    return t;
  }

  Type compute_type(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Const: return e->type;
      case ExprKind::ScalarParam: {
        const ParamType& p = params_[e.as<ScalarParam>()->param];
        return p.weak ? Type::weak(p.dtype) : Type::strong(p.dtype);
      }
      case ExprKind::ArrayDim:
      case ExprKind::LoopIndex:
      case ExprKind::GroupValue: return Type::strong(DType::I64);
      case ExprKind::LetRef: return let_types_[e.as<LetRef>()->id];
      case ExprKind::VarRef: return var_types_[e.as<VarRef>()->id];
      case ExprKind::Load: return Type::strong(array_dtype(e.as<Load>()->array));
      case ExprKind::Cast: type_of(e.as<Cast>()->value); return e->type;
      case ExprKind::TexSample: return Type::strong(DType::F32);
      case ExprKind::Select: {
        auto s = e.as<Select>();
        Type c = type_of(s->cond);
        if (!c.is_unknown() && c.dtype != DType::Bool)
          return bad("select() needs a bool condition (a comparison), got " + tname(c));
        auto j = join(type_of(s->if_true), type_of(s->if_false));
        if (!j) return bad(mix_message("select", type_of(s->if_true), type_of(s->if_false)));
        return *j;
      }
      case ExprKind::Op: return op_type(e.as<Op>());
    }
    TACK_UNREACHABLE("unknown expression kind");
  }

  static std::string mix_message(const char* what, Type a, Type b) {
    return std::string("cannot mix ") + tname(a) + " and " + tname(b) + " in " + what +
           ": no type holds both; cast one operand with cast<T>()";
  }

  Type op_type(const Op* o) {
    const char* name = op_name(o->op);
    Type t = type_of(o->args[0]);
    for (int i = 1; i < o->arity(); ++i) {
      Type u = type_of(o->args[i]);
      auto j = join(t, u);
      if (!j) return bad(mix_message(name, t, u));
      t = *j;
    }
    switch (op_category(o->op)) {
      case OpCategory::Arith:
      case OpCategory::Signed:
        if (!t.is_unknown() && t.dtype == DType::Bool)
          return bad(std::string(name) + " on bool values; cast them to an integer type first");
        return t;
      case OpCategory::Bits:
        if (!t.is_unknown() && is_float(t.dtype))
          return bad(std::string(name) + " needs integer or bool operands, got " + tname(t));
        return t;
      case OpCategory::Shift:
        if (!t.is_unknown() && !is_integer(t.dtype))
          return bad(std::string(name) + " needs integer operands, got " + tname(t));
        return t;
      case OpCategory::Compare: return Type::strong(DType::Bool);
      case OpCategory::Logic:
        for (int i = 0; i < o->arity(); ++i) {
          Type a = type_of(o->args[i]);
          if (!a.is_unknown() && a.dtype != DType::Bool)
            return bad(std::string(name) + " needs bool operands (comparisons), got " + tname(a) +
                       "; compare with != 0 first");
        }
        return Type::strong(DType::Bool);
      case OpCategory::Quotient:
        // NumPy's true division: f64 for integers and bool (weak ones give a weak f64, as
        // Python's 3 / 2 is a Python float), else the promoted float type.
        if (t.is_unknown() || is_float(t.dtype)) return t;
        return t.is_weak() ? Type::weak(DType::F64) : Type::strong(DType::F64);
      case OpCategory::Float:
      case OpCategory::Classify: {
        if (t.is_weak() && !is_float(t.dtype)) t = Type::weak(DType::F64);  // sqrt(2) is a double, as in C++
        if (t.is_strong() && !is_float(t.dtype))
          return bad(std::string(name) + " needs a float operand, got " + tname(t) + "; use cast<float>() first");
        return op_category(o->op) == OpCategory::Classify ? Type::strong(DType::Bool) : t;
      }
    }
    TACK_UNREACHABLE("unknown op category");
  }

  static Type materialize(Type t) { return t.is_weak() ? Type::strong(t.dtype) : t; }

  void scan(const Stmt& s) {
    if (!s) return;
    loc_ = s->loc;
    switch (s->kind) {
      case StmtKind::Block:
        for (const Stmt& c : s.as<Block>()->stmts) scan(c);
        return;
      case StmtKind::Let: {
        // A Let keeps a weak type here: reading `Var acc = 0.0` must not fix acc
        // at f64 before the assignments that give it its real type are seen.
        auto l = s.as<Let>();
        let_types_[l->id] = type_of(l->value);
        return;
      }
      case StmtKind::DeclareVar: {
        auto d = s.as<DeclareVar>();
        var_locs_[d->id] = s->loc;
        assign_var(d->id, type_of(d->init));
        return;
      }
      case StmtKind::Assign: {
        auto a = s.as<Assign>();
        assign_var(a->id, type_of(a->value));
        return;
      }
      case StmtKind::Atomic: {
        auto a = s.as<Atomic>();
        let_types_[a->result] = Type::strong(array_dtype(a->array));
        return;
      }
      case StmtKind::GroupReduce: {
        auto r = s.as<GroupReduce>();
        let_types_[r->result] = materialize(type_of(r->value));
        return;
      }
      case StmtKind::If:
        scan(s.as<If>()->then_case);
        scan(s.as<If>()->else_case);
        return;
      case StmtKind::For:
        let_types_[s.as<For>()->index] = Type::strong(DType::I64);
        scan(s.as<For>()->body);
        return;
      case StmtKind::Loop: scan(s.as<Loop>()->body); return;
      default: return;
    }
  }

  void assign_var(int id, Type t) {
    auto j = join(var_types_[id], t);
    if (j) var_types_[id] = *j;
  }

  // ---- phase 2: rebuilding with Strong types ----

  Expr build(const Expr& e) {
    auto it = build_memo_.find(e.get());
    if (it != build_memo_.end()) return it->second;
    Expr out = compute_build(e);
    build_memo_.emplace(e.get(), out);
    return out;
  }

  Expr compute_build(const Expr& e) {
    Type t = materialize(type_of(e));
    TACK_CHECK(t.is_strong());
    switch (e->kind) {
      case ExprKind::Const: return e->type.is_weak() ? literal(e.as<Const>(), t.dtype) : e;
      // A weak scalar keeps its own dtype here; coerce() casts it where it meets another type.
      case ExprKind::ScalarParam: return ScalarParam::make(Type::strong(params_[e.as<ScalarParam>()->param].dtype),
                                                           e.as<ScalarParam>()->param);
      case ExprKind::ArrayDim: {
        // A negative dim counts from the end (shape(-1) is the last); typed IR holds it from the front.
        auto d = e.as<ArrayDim>();
        if (d->dim == ArrayDim::kSize) return e;
        int rank = params_[d->param].rank;
        int dim = d->dim < 0 ? d->dim + rank : d->dim;
        if (dim < 0 || dim >= rank) {
          const std::string r = std::to_string(rank);
          fail_index("shape(" + std::to_string(d->dim) + ") of argument " + std::to_string(d->param) +
                     ", which has rank " + r + " here: " +
                     (rank == 1 ? std::string("its one dimension is 0, or -1 from the end")
                                : "its dimensions are 0 to " + std::to_string(rank - 1) + ", or -" + r +
                                      " to -1 from the end"));
        }
        return dim == d->dim ? e : ArrayDim::make(d->param, dim);
      }
      case ExprKind::LoopIndex:
      case ExprKind::GroupValue: return e;
      case ExprKind::LetRef: return LetRef::make(t, e.as<LetRef>()->id);
      case ExprKind::VarRef: return VarRef::make(t, e.as<VarRef>()->id);
      case ExprKind::Load: {
        auto l = e.as<Load>();
        check_rank(l->array, l->subscripts);
        return Load::make(t, l->array, index(l->index, "an array index"), l->subscripts);
      }
      case ExprKind::Cast: return Cast::make(e->type, build(e.as<Cast>()->value));
      case ExprKind::TexSample: {
        auto s = e.as<TexSample>();
        return TexSample::make(t, s->param, coordinate(s->u), coordinate(s->v), coordinate(s->w));
      }
      case ExprKind::Select: {
        auto s = e.as<Select>();
        return Select::make(t, coerce(s->cond, DType::Bool), coerce(s->if_true, t.dtype), coerce(s->if_false, t.dtype));
      }
      case ExprKind::Op: {
        auto o = e.as<Op>();
        DType operand = t.dtype;
        switch (op_category(o->op)) {
          case OpCategory::Compare: {
            auto j = join(type_of(o->args[0]), type_of(o->args[1]));
            operand = materialize(*j).dtype;
            break;
          }
          case OpCategory::Classify: {
            Type a = type_of(o->args[0]);
            operand = a.is_weak() && !is_float(a.dtype) ? DType::F64 : a.dtype;
            break;
          }
          default: break;
        }
        OpCode op = o->op;
        if (op == OpCode::TrueDiv) {
          // Lowered here, so that no later pass, backend or the interpreter meets it.
          check_true_division(*join(type_of(o->args[0]), type_of(o->args[1])));
          op = OpCode::Div;
        }
        std::array<Expr, 3> args;
        for (int i = 0; i < o->arity(); ++i) args[i] = coerce(o->args[i], operand);
        return Op::make(t, op, args[0], args[1], args[2]);
      }
    }
    TACK_UNREACHABLE("unknown expression kind");
  }

  // A weak literal becomes a constant of dtype `to`; it must fit when it is an integer.
  Expr literal(const Const* c, DType to) {
    DType from = c->type.dtype;
    if (is_integer(from) && is_integer(to)) {
      bool fits;
      if (from == DType::U64) {
        fits = is_unsigned_int(to) ? (dtype_bits(to) == 64 || c->u() < (std::uint64_t{1} << dtype_bits(to)))
                                   : c->u() <= (std::numeric_limits<std::uint64_t>::max() >> (65 - dtype_bits(to)));
      } else if (is_unsigned_int(to)) {
        fits = c->i >= 0 && (dtype_bits(to) == 64 || c->i < (std::int64_t{1} << dtype_bits(to)));
      } else {
        std::int64_t lim = dtype_bits(to) == 64 ? std::numeric_limits<std::int64_t>::max()
                                                : (std::int64_t{1} << (dtype_bits(to) - 1)) - 1;
        fits = c->i <= lim && c->i >= -lim - 1;
      }
      if (!fits) {
        std::string v = from == DType::U64 ? std::to_string(c->u()) : std::to_string(c->i);
        fail("the literal " + v + " does not fit " + std::string(dtype_name(to)) + "; cast it explicitly");
      }
    }
    return make_const(to, eval_cast(from, to, const_bits(c)));
  }

  // Operand promotion: the value is converted to `to` exactly as cast() would.
  Expr coerce(const Expr& e, DType to) {
    Type t = type_of(e);
    if (t.is_weak() && e->kind == ExprKind::Const) return literal(e.as<Const>(), to);
    Expr b = build(e);
    return b->type.dtype == to ? b : Cast::make(Type::strong(to), b);
  }

  // Indices, sizes and loop bounds: any integer, widened to i64.
  Expr index(const Expr& e, const char* what) {
    Type t = type_of(e);
    if (!is_integer(t.dtype))
      fail(std::string(what) + " must be an integer, got " + tname(t) + "; use cast<int64_t>() for a float");
    return coerce(e, DType::I64);
  }

  Expr coordinate(const Expr& e) {
    Type t = type_of(e);
    if (t.is_strong() && !is_float(t.dtype))
      fail("texture coordinates are floats, got " + tname(t) + "; use cast<float>()");
    return coerce(e, DType::F32);
  }

  // A Var's type is the promotion of everything assigned to it; phase 1 skips
  // assignments that cannot be promoted together, so refuse them here.
  void check_var_mix(int id, const Expr& value) {
    Type t = type_of(value);
    if (!join(var_types_[id], t))
      fail("a Var of type " + tname(var_types_[id]) + " is assigned " + tname(t) +
           "; no type holds both, so cast the value with cast<T>()");
  }

  void check_rank(ArrayRef a, int subscripts) {
    if (a.space != ArrayRef::Space::Param || subscripts == 0) return;
    int rank = params_[a.index].rank;
    if (subscripts != rank)
      fail_arg("argument " + std::to_string(a.index) + " is indexed with " + std::to_string(subscripts) +
               " subscripts but has rank " + std::to_string(rank));
  }

  Expr condition(const Expr& e, const char* what) {
    Type t = type_of(e);
    if (t.dtype != DType::Bool)
      fail(std::string(what) + " must be a bool (a comparison), got " + tname(t) + "; compare with != 0");
    return build(e);
  }

  Stmt build(const Stmt& s) {
    if (!s) return s;
    loc_ = s->loc;
    switch (s->kind) {
      case StmtKind::Block: {
        std::vector<Stmt> out;
        for (const Stmt& c : s.as<Block>()->stmts) out.push_back(build(c));
        return Block::make(std::move(out), s->loc);
      }
      case StmtKind::Let: {
        auto l = s.as<Let>();
        Expr v = build(l->value);
        let_types_[l->id] = v->type;
        return Let::make(l->id, v, s->loc);
      }
      case StmtKind::DeclareVar: {
        auto d = s.as<DeclareVar>();
        check_var_mix(d->id, d->init);
        return DeclareVar::make(d->id, coerce(d->init, var_types_[d->id].dtype), s->loc);
      }
      case StmtKind::Assign: {
        auto a = s.as<Assign>();
        check_var_mix(a->id, a->value);
        return Assign::make(a->id, coerce(a->value, var_types_[a->id].dtype), s->loc);
      }
      case StmtKind::Store: {
        auto st = s.as<Store>();
        check_rank(st->array, st->subscripts);
        DType t = array_dtype(st->array);
        return Store::make(st->array, index(st->index, "an array index"), st->subscripts, coerce(st->value, t),
                           s->loc);
      }
      case StmtKind::Atomic: {
        auto a = s.as<Atomic>();
        check_rank(a->array, a->subscripts);
        DType t = array_dtype(a->array);
        if (t == DType::Bool)
          fail(std::string("atomic_") + atomic_name(a->op) +
               " on a bool array: atomics need numbers; use a u8 or i32 array for flags");
        bool bitwise = a->op == AtomicOp::And || a->op == AtomicOp::Or || a->op == AtomicOp::Xor;
        if (bitwise && is_float(t))
          fail(std::string("atomic_") + atomic_name(a->op) + " needs an integer array, got " +
               std::string(dtype_name(t)));
        let_types_[a->result] = Type::strong(t);
        return Atomic::make(a->op, a->array, index(a->index, "an array index"), a->subscripts, coerce(a->value, t),
                            a->compare ? coerce(a->compare, t) : Expr(), a->result, s->loc);
      }
      case StmtKind::If: {
        auto i = s.as<If>();
        Expr c = condition(i->cond, "the condition of if_ or while_");
        Stmt t = build(i->then_case);
        Stmt e = build(i->else_case);
        return If::make(c, t, e, s->loc);
      }
      case StmtKind::For: {
        auto f = s.as<For>();
        Expr lo = index(f->lo, "a for_range bound");
        Expr hi = index(f->hi, "a for_range bound");
        let_types_[f->index] = Type::strong(DType::I64);
        return For::make(f->index, lo, hi, build(f->body), s->loc);
      }
      case StmtKind::Loop: return Loop::make(build(s.as<Loop>()->body), s->loc);
      case StmtKind::GroupReduce: {
        auto r = s.as<GroupReduce>();
        Type t = materialize(type_of(r->value));
        if (t.dtype == DType::Bool) fail("a group reduction needs numbers, got bool; cast first");
        Expr v = coerce(r->value, t.dtype);
        let_types_[r->result] = t;
        return GroupReduce::make(r->op, v, r->result, s->loc);
      }
      case StmtKind::Print: {
        // Each argument keeps its own dtype; a weak literal takes its default one.
        auto p = s.as<Print>();
        std::vector<Expr> args;
        for (const Expr& a : p->args) args.push_back(coerce(a, materialize(type_of(a)).dtype));
        return Print::make(p->format, std::move(args), s->loc);
      }
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Barrier: return s;
    }
    TACK_UNREACHABLE("unknown statement kind");
  }

  const Kernel& k_;
  const std::vector<ParamType>& params_;
  const DeviceLimits& device_;
  std::vector<Type> let_types_, var_types_;
  std::vector<SourceLoc> var_locs_;
  std::unordered_map<const ExprNode*, Type> type_memo_;
  std::unordered_map<const ExprNode*, Expr> build_memo_;
  SourceLoc loc_;
  bool tolerant_ = false;
};

}  // namespace

ir::Kernel infer_types(const ir::Kernel& traced, const std::vector<ParamType>& params, const DeviceLimits& device) {
  return Inference(traced, params, device).run();
}

}  // namespace tack::passes
