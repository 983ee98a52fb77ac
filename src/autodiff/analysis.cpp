// The checks and facts of analysis.hpp: one walk for the refusals and the array accesses, then the values
// the backward sweep needs, to a fixed point.
#include "autodiff/analysis.hpp"

#include "analysis/subscripts.hpp"
#include "autodiff/derivatives.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace tack::autodiff {
namespace {
using namespace ir;

struct ArrayAccess {
  Expr index;
  int subscripts;
  bool write;
  const StmtNode* at;
  int let = -1;  // a load's Let
};

class Analysis {
 public:
  Analysis(const Kernel& k, Mode mode) : k_(k), mode_(mode), reader_(k) {
    facts_.let_needed.assign(k.lets.size(), false);
    facts_.var_needed.assign(k.vars.size(), false);
    facts_.written.assign(k.params.size(), false);
    facts_.own_element.assign(k.params.size(), false);
    facts_.exclusive.assign(k.params.size(), false);
    facts_.local_needed.assign(k.locals.size(), false);
  }

  KernelFacts run() {
    for_each_stmt(k_.body, [&](const Stmt& s) { collect(s); });
    for (const auto& [id, at] : atomic_results_)
      if (used_lets_.count(id) && (mode_ == Mode::Reverse || differentiable(k_.lets[static_cast<size_t>(id)].dtype)))
        refuse(at, "the old value an atomic returns", "its value depends on the order of the work-items");
    if (mode_ == Mode::Reverse) find_needed();
    for (size_t p = 0; p < k_.params.size(); ++p) arrays(static_cast<int>(p));
    return std::move(facts_);
  }

 private:
  [[noreturn]] void refuse(const StmtNode* at, const std::string& what, const std::string& why) const {
    std::string where = at ? at->loc.str() : "";
    throw NotDifferentiable("kernel '" + k_.name + "' cannot be differentiated: " + what +
                            (where.empty() ? "" : " at " + where) + ": " + why);
  }

  void note_exprs(const Stmt& s) {
    std::unordered_set<const ExprNode*> seen;
    for (const Expr& root : own_exprs(s))
      walk(root, seen, [&](const Expr& e) {
        if (auto r = e.as<LetRef>()) used_lets_.insert(r->id);
      });
  }

  void access(const ArrayRef& a, const Expr& index, int subscripts, bool write, const Stmt& s, int let = -1) {
    if (a.space == ArrayRef::Space::Shared)
      refuse(s.get(), "workgroup shared memory", "work-items exchange values through it, which no adjoint replays");
    if (a.space == ArrayRef::Space::Local) {
      // A work-item's own state, like its Vars: the adjoint restores and differentiates it (reverse_mode.cpp).
      if (!write) local_loads_.emplace_back(a.index, let);
      return;
    }
    accesses_[a.index].push_back({index, subscripts, write, s.get(), let});
  }

  void collect(const Stmt& s) {
    note_exprs(s);
    switch (s->kind) {
      case StmtKind::Let:
        if (auto l = s.as<Let>()->value.as<Load>())
          access(l->array, l->index, l->subscripts, false, s, s.as<Let>()->id);
        break;
      case StmtKind::Store: {
        auto n = s.as<Store>();
        access(n->array, n->index, n->subscripts, true, s);
        break;
      }
      case StmtKind::Atomic: {
        auto n = s.as<Atomic>();
        const DType t = n->array.space == ArrayRef::Space::Param ? k_.params[static_cast<size_t>(n->array.index)].dtype
                                                                 : DType::I32;
        if (differentiable(t) && n->op != AtomicOp::Add && n->op != AtomicOp::Sub)
          refuse(s.get(), std::string("atomic_") + atomic_name(n->op) + " on a float array",
                 "only atomic_add and atomic_sub have a derivative");
        access(n->array, n->index, n->subscripts, true, s);
        atomic_results_.emplace_back(n->result, s.get());
        break;
      }
      // Forward mode follows the program's own control flow; reverse mode has to run it backwards.
      case StmtKind::Loop:
        if (mode_ == Mode::Reverse)
          refuse(s.get(), "a while loop", "its trip count is not known to the backward sweep; write it as a for loop");
        break;
      case StmtKind::Break:
        if (mode_ == Mode::Reverse) refuse(s.get(), "break", "a loop left early has no adjoint in Tack yet");
        break;
      case StmtKind::Continue:
        if (mode_ == Mode::Reverse) refuse(s.get(), "continue", "use an if around the rest of the body instead");
        break;
      case StmtKind::Barrier:
        refuse(s.get(), "a workgroup barrier", "work-items exchange values across it, which no adjoint replays");
      case StmtKind::GroupReduce:
        refuse(s.get(), "a group reduction", "its value comes from other work-items, which no adjoint replays");
      default: break;
    }
  }

  // ---- which values the backward sweep reads -------------------------------------------------------------

  void mark_all(const Expr& e) {
    std::unordered_set<const ExprNode*> seen;
    walk(e, seen, [&](const Expr& x) {
      if (auto r = x.as<LetRef>()) changed_ |= set(facts_.let_needed, r->id);
      if (auto r = x.as<VarRef>()) changed_ |= set(facts_.var_needed, r->id);
    });
  }
  static bool set(std::vector<bool>& v, int id) {
    if (v[static_cast<size_t>(id)]) return false;
    v[static_cast<size_t>(id)] = true;
    return true;
  }

  // The parts of e that its derivative reads: the operands of a multiplication, a select's condition, an index.
  void mark_derivative_reads(const Expr& e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Op: {
        auto n = e.as<Op>();
        const bool reads = !differentiable(e) || partials_read_operands(n->op);
        for (int i = 0; i < n->arity(); ++i) {
          if (reads && !only_scales(*n, i))
            mark_all(n->args[static_cast<size_t>(i)]);
          else
            mark_derivative_reads(n->args[static_cast<size_t>(i)]);
        }
        break;
      }
      case ExprKind::Select: {
        auto n = e.as<Select>();
        mark_all(n->cond);
        mark_derivative_reads(n->if_true);
        mark_derivative_reads(n->if_false);
        break;
      }
      case ExprKind::Cast:
        if (differentiable(e) && differentiable(e.as<Cast>()->value)) mark_derivative_reads(e.as<Cast>()->value);
        break;
      case ExprKind::Load: mark_all(e.as<Load>()->index); break;
      case ExprKind::TexSample:  // its derivative samples around the coordinates
        mark_all(e.as<TexSample>()->u);
        mark_all(e.as<TexSample>()->v);
        mark_all(e.as<TexSample>()->w);
        break;
      default: break;
    }
  }

  // Whether e may carry a derivative: a float expression reading some Let or Var (constants, scalar
  // parameters and shapes do not).
  static bool active(const Expr& e) {
    if (!differentiable(e)) return false;
    bool reads = false;
    std::unordered_set<const ExprNode*> seen;
    walk(e, seen, [&](const Expr& x) { reads |= x->kind == ExprKind::LetRef || x->kind == ExprKind::VarRef; });
    return reads;
  }

  // Whether operand i of n is read only by the partials of operands that carry no derivative: a * 3.0 needs
  // a's value for the derivative with respect to 3.0 alone.
  static bool only_scales(const Op& n, int i) {
    const auto other = [&](int j) { return n.args[static_cast<size_t>(j)]; };
    switch (n.op) {
      case OpCode::Mul: return !active(other(1 - i));
      case OpCode::Div: return i == 0 && !active(other(1));
      case OpCode::Fma: return i == 2 || (i < 2 && !active(other(1 - i)));
      default: return false;
    }
  }

  void value(const Expr& e, bool needed) {
    if (needed)
      mark_all(e);
    else
      mark_derivative_reads(e);
  }

  void find_needed() {
    std::vector<Stmt> all;
    for_each_stmt(k_.body, [&](const Stmt& s) { all.push_back(s); });
    do {
      changed_ = false;
      for (const Stmt& s : all) {
        switch (s->kind) {
          case StmtKind::Let: {
            auto n = s.as<Let>();
            value(n->value, facts_.let_needed[static_cast<size_t>(n->id)]);
            break;
          }
          case StmtKind::DeclareVar: {
            auto n = s.as<DeclareVar>();
            value(n->init, facts_.var_needed[static_cast<size_t>(n->id)]);
            break;
          }
          case StmtKind::Assign: {
            auto n = s.as<Assign>();
            value(n->value, facts_.var_needed[static_cast<size_t>(n->id)]);
            break;
          }
          case StmtKind::Store: {
            auto n = s.as<Store>();
            mark_all(n->index);
            const bool local = n->array.space == ArrayRef::Space::Local;
            value(n->value, local && facts_.local_needed[static_cast<size_t>(n->array.index)]);
            break;
          }
          case StmtKind::Atomic:
            mark_all(s.as<Atomic>()->index);
            value(s.as<Atomic>()->value, false);
            break;
          case StmtKind::If: mark_all(s.as<If>()->cond); break;
          case StmtKind::For:
            mark_all(s.as<For>()->lo);
            mark_all(s.as<For>()->hi);
            break;
          default: break;
        }
      }
      for (const auto& [local, let] : local_loads_)
        if (facts_.let_needed[static_cast<size_t>(let)]) changed_ |= set(facts_.local_needed, local);
    } while (changed_);
  }

  // ---- how each array parameter is accessed ---------------------------------------------------------------

  // A Let's value where it is the same wherever the Let is visible (no loads or Vars in it), for comparing indices.
  Expr resolve(const Expr& e) {
    if (!pure_lets_done_) {
      pure_lets_done_ = true;
      for_each_stmt(k_.body, [&](const Stmt& s) {
        auto l = s.as<Let>();
        if (!l) return;
        bool pure = true;
        std::unordered_set<const ExprNode*> seen;
        walk(l->value, seen, [&](const Expr& x) {
          pure &= x->kind != ExprKind::Load && x->kind != ExprKind::VarRef && x->kind != ExprKind::TexSample;
        });
        if (pure) pure_lets_[l->id] = l->value;
      });
    }
    if (auto r = e.as<LetRef>()) {
      auto it = pure_lets_.find(r->id);
      if (it != pure_lets_.end()) return resolve(it->second);
    }
    return e;
  }

  bool same(const Expr& x, const Expr& y) {
    Expr a = resolve(x), b = resolve(y);
    if (a.same_as(b)) return true;
    if (!a || !b || a->kind != b->kind || a->type != b->type) return false;
    switch (a->kind) {
      case ExprKind::Const: return a.as<Const>()->i == b.as<Const>()->i && a.as<Const>()->f == b.as<Const>()->f;
      case ExprKind::ScalarParam: return a.as<ScalarParam>()->param == b.as<ScalarParam>()->param;
      case ExprKind::ArrayDim:
        return a.as<ArrayDim>()->param == b.as<ArrayDim>()->param && a.as<ArrayDim>()->dim == b.as<ArrayDim>()->dim;
      case ExprKind::LoopIndex: return a.as<LoopIndex>()->dim == b.as<LoopIndex>()->dim;
      case ExprKind::GroupValue: return a.as<GroupValue>()->field == b.as<GroupValue>()->field;
      case ExprKind::LetRef: return a.as<LetRef>()->id == b.as<LetRef>()->id;
      case ExprKind::Op: {
        auto p = a.as<Op>(), q = b.as<Op>();
        if (p->op != q->op) return false;
        for (int i = 0; i < p->arity(); ++i)
          if (!same(p->args[static_cast<size_t>(i)], q->args[static_cast<size_t>(i)])) return false;
        return true;
      }
      case ExprKind::Cast: return same(a.as<Cast>()->value, b.as<Cast>()->value);
      case ExprKind::Select:
        return same(a.as<Select>()->cond, b.as<Select>()->cond) &&
               same(a.as<Select>()->if_true, b.as<Select>()->if_true) &&
               same(a.as<Select>()->if_false, b.as<Select>()->if_false);
      default: return false;  // VarRef, Load, TexSample: may differ between two places
    }
  }

  // The row-major flattening of the launch's indices over array `param`'s shape, dimension `d` deep.
  bool flattened_loop_index(const Expr& e, int param, int d) {
    Expr x = resolve(e);
    if (d == 0) return x.as<LoopIndex>() && x.as<LoopIndex>()->dim == 0;
    auto add = x.as<Op>();
    if (!add || add->op != OpCode::Add) return false;
    Expr last = resolve(add->args[1]);
    if (!last.as<LoopIndex>() || last.as<LoopIndex>()->dim != d) return false;
    auto mul = resolve(add->args[0]).as<Op>();
    if (!mul || mul->op != OpCode::Mul) return false;
    Expr extent = resolve(mul->args[1]);
    auto dim = extent.as<ArrayDim>();
    return dim && dim->param == param && dim->dim == d && flattened_loop_index(mul->args[0], param, d - 1);
  }

  bool own_element(const ArrayAccess& a, int param) {
    if (k_.launch != LaunchKind::Parallel) return false;
    const int dims = static_cast<int>(k_.dims.size());
    if (dims == 1) return flattened_loop_index(a.index, param, 0) && a.subscripts <= 1;
    return a.subscripts == dims && k_.params[static_cast<size_t>(param)].rank == dims &&
           flattened_loop_index(a.index, param, dims - 1);
  }

  // The same in every work-item: built from constants, scalar parameters and shapes.
  bool uniform(const Expr& e) {
    Expr x = resolve(e);
    switch (x->kind) {
      case ExprKind::Const:
      case ExprKind::ScalarParam:
      case ExprKind::ArrayDim: return true;
      case ExprKind::Cast: return uniform(x.as<Cast>()->value);
      case ExprKind::Select:
        return uniform(x.as<Select>()->cond) && uniform(x.as<Select>()->if_true) && uniform(x.as<Select>()->if_false);
      case ExprKind::Op: {
        auto n = x.as<Op>();
        for (int i = 0; i < n->arity(); ++i)
          if (!uniform(n->args[static_cast<size_t>(i)])) return false;
        return true;
      }
      default: return false;
    }
  }

  // The launch dimension a subscript is a one-to-one function of (over the launch's range of that index, the
  // other indices aside): the index itself, shifted by a uniform amount, or wrapped around periodically as
  // select(i == 0, n - 1, i - 1) and select(i == m, 0, i + 1) do, n being the launch's extent.
  std::optional<int> one_to_one_in(const Expr& e) {
    Expr x = resolve(e);
    if (auto i = x.as<LoopIndex>()) return i->dim;
    if (auto n = x.as<Op>()) {
      if (n->op == OpCode::Add && uniform(n->args[0])) return one_to_one_in(n->args[1]);
      if ((n->op == OpCode::Add || n->op == OpCode::Sub) && uniform(n->args[1])) return one_to_one_in(n->args[0]);
      return std::nullopt;
    }
    const std::optional<analysis::IndexReader::Wrap> wrap = reader_.wrapped_index(x);
    if (!wrap || !uniform(wrap->compared)) return std::nullopt;
    const int d = wrap->dim;
    // i + 1, and 0 where i == m: 0 is no i + 1, whatever m is.
    if (wrap->shift == 1 && reader_.constant(wrap->wrapped) == 0) return d;
    // i - 1 for i > 0, and n - 1 at 0, where the launch runs i over [0, n).
    if (wrap->shift != -1 || reader_.constant(wrap->compared) != 0) return std::nullopt;
    auto last = resolve(wrap->wrapped).as<Op>();
    const bool range_less_1 = last && last->op == OpCode::Sub && reader_.constant(last->args[1]) == 1 &&
                              d < static_cast<int>(k_.dims.size()) &&
                              same(last->args[0], k_.dims[static_cast<size_t>(d)]);
    return range_less_1 ? std::optional<int>(d) : std::nullopt;
  }

  // Whether different work-items reach different elements through the access: each launch index enters exactly
  // one subscript one-to-one, the rest are uniform, and the inner subscripts stay within their extents (else a
  // flat index in range reaches into another row; the outermost one out of range is out of the array).
  bool one_to_one(const std::vector<Expr>& subs, int p) {
    if (subs.empty() || k_.launch != LaunchKind::Parallel) return false;
    for (size_t d = 1; d < subs.size(); ++d)
      if (!reader_.within_extent(subs[d], p, static_cast<int>(d))) return false;
    std::vector<bool> used(k_.dims.size(), false);
    for (const Expr& s : subs) {
      if (std::optional<int> d = one_to_one_in(s)) {
        if (*d < 0 || *d >= static_cast<int>(used.size()) || used[static_cast<size_t>(*d)]) return false;
        used[static_cast<size_t>(*d)] = true;
      } else if (!uniform(s)) {
        return false;
      }
    }
    return std::find(used.begin(), used.end(), false) == used.end();
  }

  // No element of array p is reached by two work-items: every access is one-to-one, and two different accesses
  // either are the same index or differ in a constant subscript (fin(0, ...) and fin(1, ...)).
  bool exclusive(const std::vector<ArrayAccess>& list, int p) {
    std::vector<std::vector<Expr>> subs;
    for (const ArrayAccess& a : list) {
      subs.push_back(reader_.subscripts(a.index, a.subscripts, p));
      if (!one_to_one(subs.back(), p)) return false;
    }
    for (size_t a = 0; a < list.size(); ++a)
      for (size_t b = a + 1; b < list.size(); ++b) {
        if (same(list[a].index, list[b].index)) continue;
        bool apart = false;
        for (size_t d = 0; d < std::min(subs[a].size(), subs[b].size()) && subs[a].size() == subs[b].size(); ++d) {
          std::optional<std::int64_t> x = reader_.constant(subs[a][d]), y = reader_.constant(subs[b][d]);
          apart |= x && y && *x != *y;
        }
        if (!apart) return false;
      }
    return true;
  }

  void arrays(int p) {
    auto it = accesses_.find(p);
    if (it == accesses_.end()) return;
    const std::vector<ArrayAccess>& list = it->second;
    bool own = true, written = false;
    for (const ArrayAccess& a : list) {
      own &= same(a.index, list.front().index) && own_element(a, p);
      written |= a.write;
    }
    facts_.own_element[static_cast<size_t>(p)] = own;
    facts_.exclusive[static_cast<size_t>(p)] = own || exclusive(list, p);
    facts_.written[static_cast<size_t>(p)] = written;
    if (mode_ != Mode::Reverse || !written || !differentiable(k_.params[static_cast<size_t>(p)].dtype)) return;
    // The backward sweep runs after the kernel and reads the arrays as the kernel left them.
    const ArrayAccess* first_write = nullptr;
    for (const ArrayAccess& a : list)
      if (a.write && !first_write) first_write = &a;
    for (const ArrayAccess& a : list) {
      if (a.write) continue;
      const std::string array = "argument " + std::to_string(p);
      for (const ArrayAccess& w : list)
        if (w.write && !same(a.index, w.index))
          refuse(a.at, "a read of " + array + ", which the kernel also writes at other elements",
                 "the adjoint would need the values it overwrote; write the result to another array");
      if (facts_.let_needed[static_cast<size_t>(a.let)])
        refuse(a.at, "a read of " + array + ", which the kernel overwrites",
               "the adjoint needs the value read, which the store at " + first_write->at->loc.str() +
                   " replaced; write the result to another array");
    }
  }

  const Kernel& k_;
  Mode mode_;
  analysis::IndexReader reader_;
  KernelFacts facts_;
  bool changed_ = false;
  std::unordered_set<int> used_lets_;
  std::vector<std::pair<int, const StmtNode*>> atomic_results_;
  std::vector<std::pair<int, int>> local_loads_;  // (local array, the load's Let)
  std::unordered_map<int, std::vector<ArrayAccess>> accesses_;
  std::unordered_map<int, Expr> pure_lets_;
  bool pure_lets_done_ = false;
};

void changed_vars(const Stmt& s, std::set<int>& assigned, std::set<int>& declared) {
  for_each_stmt(s, [&](const Stmt& x) {
    if (auto a = x.as<Assign>()) assigned.insert(a->id);
    if (auto d = x.as<DeclareVar>()) declared.insert(d->id);
  });
}

}  // namespace

KernelFacts analyze(const Kernel& typed, Mode mode) { return Analysis(typed, mode).run(); }

std::set<int> locals_changed(const Stmt& s) {
  std::set<int> out;
  for_each_stmt(s, [&](const Stmt& x) {
    if (auto st = x.as<Store>(); st && st->array.space == ArrayRef::Space::Local) out.insert(st->array.index);
  });
  return out;
}

std::vector<int> gradient_params(const Kernel& k) {
  std::vector<int> out(k.params.size(), -1);
  for (size_t p = 0; p < k.params.size(); ++p)
    if (k.params[p].gradient_of >= 0) out[static_cast<size_t>(k.params[p].gradient_of)] = static_cast<int>(p);
  return out;
}

int new_let(Kernel& k, Type t) {
  k.lets.push_back(t);
  return static_cast<int>(k.lets.size() - 1);
}

int new_var(Kernel& k, Type t, const std::string& name) {
  k.vars.push_back(t);
  const int id = static_cast<int>(k.vars.size() - 1);
  if (!name.empty()) {
    k.var_names.resize(k.vars.size());
    k.var_names[static_cast<size_t>(id)] = name;
  }
  return id;
}

std::set<int> vars_changed(const Stmt& s) {
  std::set<int> assigned, declared, out;
  changed_vars(s, assigned, declared);
  for (int v : assigned)
    if (!declared.count(v)) out.insert(v);
  return out;
}

}  // namespace tack::autodiff
