// The adjoint pass: a replay of each block's forward work, then its statements' adjoints in reverse order,
// with the Vars each statement changed restored first, so every adjoint sees the values its statement saw.
#include "autodiff/reverse_mode.hpp"

#include "autodiff/analysis.hpp"
#include "autodiff/derivatives.hpp"
#include "autodiff/order_scatters.hpp"
#include "autodiff/own_element_stores.hpp"
#include "ir/check.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <unordered_map>
#include <unordered_set>

namespace tack::autodiff {
namespace {
using namespace ir;

Type i64() { return Type::strong(DType::I64); }
Expr i64_const(std::int64_t v) { return Const::make_int(i64(), v); }

// Where each original Let and Var lives in the code being written, and its adjoint Var (floats only).
struct Env {
  std::unordered_map<int, int> let, var, adj_let, adj_var;
};

class Reverse {
 public:
  explicit Reverse(const Kernel& primal) : k_(primal), facts_(analyze(primal, Mode::Reverse)) {
    gradient_ = gradient_params(k_);
    adjoint_local_.assign(k_.locals.size(), -1);
    for (size_t l = 0; l < adjoint_local_.size(); ++l)
      if (differentiable(k_.locals[l].dtype)) adjoint_local_[l] = add_local(static_cast<int>(l));
  }

  Kernel run() {
    std::vector<Stmt> out;
    // The local arrays' adjoints start at zero (each declaration's zeroing stores clear them again backwards).
    for (int adj : adjoint_local_)
      if (adj >= 0) out.push_back(fill_local(adj, FloatMath{k_.locals[static_cast<size_t>(adj)].dtype}.constant(0)));
    reverse_block(block_items(k_.body), Env{}, out);
    // The gradients of arrays touched only at the work-item's own element: one read and one write each.
    std::vector<bool> own(k_.params.size(), false);
    for (size_t p = 0; p < gradient_.size(); ++p)
      if (gradient_[p] >= 0 && facts_.own_element[p]) own[static_cast<size_t>(gradient_[p])] = true;
    k_.body = forward_own_element_stores(k_, Block::make(std::move(out), k_.body->loc), own);
    k_.derivative = Derivative::None;
    return order_scatters(k_);
  }

 private:
  // ---- ids ----------------------------------------------------------------------------------------------

  int new_let(Type t) { return autodiff::new_let(k_, t); }
  int new_var(Type t, const std::string& name) { return autodiff::new_var(k_, t, name); }
  std::string var_name(int original) const {
    return static_cast<size_t>(original) < k_.var_names.size() ? k_.var_names[static_cast<size_t>(original)] : "";
  }
  Type let_type(int id) const { return k_.lets[static_cast<size_t>(id)]; }
  Type var_type(int id) const { return k_.vars[static_cast<size_t>(id)]; }
  bool var_needed(int id) const { return facts_.var_needed[static_cast<size_t>(id)]; }

  // Binds e to a fresh Let (unless it is a constant or a Let already) and returns a reference to it.
  Expr bind(const Expr& e, std::vector<Stmt>& out, SourceLoc loc) {
    const bool leaf = e && e->kind != ExprKind::Op && e->kind != ExprKind::Select && e->kind != ExprKind::Cast &&
                      e->kind != ExprKind::Load && e->kind != ExprKind::VarRef;
    if (!e || leaf) return e;
    const int id = new_let(e->type);
    out.push_back(Let::make(id, e, loc));
    return LetRef::make(e->type, id);
  }

  // ---- local arrays ---------------------------------------------------------------------------------------

  // A new local array of local array l's dtype and count.
  int add_local(int l) {
    k_.locals.push_back(k_.locals[static_cast<size_t>(l)]);
    return static_cast<int>(k_.locals.size() - 1);
  }
  static ArrayRef local_ref(int l) { return ArrayRef{ArrayRef::Space::Local, l}; }

  // for t in [0, count): to[t] = v
  Stmt fill_local(int to, const Expr& v) {
    const int t = new_let(i64());
    return For::make(t, i64_const(0), i64_const(k_.locals[static_cast<size_t>(to)].count),
                     Block::make({Store::make(local_ref(to), LetRef::make(i64(), t), 0, v)}));
  }
  Stmt copy_local(int from, int to) {
    const Type t = Type::strong(k_.locals[static_cast<size_t>(from)].dtype);
    const int held = new_let(t);
    const int index_let = new_let(i64());
    const Expr index = LetRef::make(i64(), index_let);
    return For::make(index_let, i64_const(0), i64_const(k_.locals[static_cast<size_t>(from)].count),
                     Block::make({Let::make(held, Load::make(t, local_ref(from), index, 0)),
                                  Store::make(local_ref(to), index, 0, LetRef::make(t, held))}));
  }

  // a[index] += g, by a plain read and write (a work-item's own element, or its local array).
  void add_into(const ArrayRef& a, const Expr& index, int subscripts, const Expr& g, std::vector<Stmt>& out,
                SourceLoc loc) {
    const int old = new_let(g->type);
    out.push_back(Let::make(old, Load::make(g->type, a, index, subscripts), loc));
    out.push_back(Store::make(a, index, subscripts, FloatMath{g->type.dtype}.add(LetRef::make(g->type, old), g), loc));
  }

  // a[index] (of dtype t), and (clear) zero stored there after reading it.
  Expr take(const ArrayRef& a, DType t, const Expr& index, int subscripts, bool clear, std::vector<Stmt>& out,
            SourceLoc loc) {
    const int g = new_let(Type::strong(t));
    out.push_back(Let::make(g, Load::make(Type::strong(t), a, index, subscripts), loc));
    if (clear) out.push_back(Store::make(a, index, subscripts, FloatMath{t}.constant(0), loc));
    return LetRef::make(Type::strong(t), g);
  }

  // How a statement's changes to the local arrays the backward sweep reads are undone: the old element of a
  // plain store, or a copy of the whole array for a compound statement.
  struct LocalSave {
    int local;
    Expr index;  // a store's element, renamed; null: `copy` holds the whole array
    Expr old;
    int copy = -1;
  };
  std::vector<LocalSave> save_locals(const Stmt& s, const Env& env, std::vector<Stmt>& out) {
    std::vector<LocalSave> saves;
    for (int l : locals_changed(s)) {
      if (!facts_.local_needed[static_cast<size_t>(l)]) continue;
      if (auto st = s.as<Store>()) {
        const Type t = Type::strong(k_.locals[static_cast<size_t>(l)].dtype);
        const Expr index = bind(rename(st->index, env), out, s->loc);
        const int old = new_let(t);
        out.push_back(Let::make(old, Load::make(t, local_ref(l), index, 0), s->loc));
        saves.push_back({l, index, LetRef::make(t, old)});
      } else {
        saves.push_back(copy_whole(l, out));
      }
    }
    return saves;
  }
  // A copy of local array l, made now, that restore_locals copies back.
  LocalSave copy_whole(int l, std::vector<Stmt>& out) {
    const int copy = add_local(l);
    out.push_back(copy_local(l, copy));
    return {l, {}, {}, copy};
  }
  void restore_locals(const std::vector<LocalSave>& saves, std::vector<Stmt>& out) {
    for (const LocalSave& v : saves)
      out.push_back(v.index ? Store::make(local_ref(v.local), v.index, 0, v.old) : copy_local(v.copy, v.local));
  }

  // ---- renaming -----------------------------------------------------------------------------------------

  using Memo = std::unordered_map<const ExprNode*, Expr>;

  static int mapped(const std::unordered_map<int, int>& m, int id) {
    auto it = m.find(id);
    TACK_CHECK(it != m.end());
    return it->second;
  }

  Expr rename(const Expr& e, const Env& env, Memo& memo) {
    if (!e) return e;
    auto hit = memo.find(e.get());
    if (hit != memo.end()) return hit->second;
    Expr out = e;
    switch (e->kind) {
      case ExprKind::LetRef: out = LetRef::make(e->type, mapped(env.let, e.as<LetRef>()->id)); break;
      case ExprKind::VarRef: out = VarRef::make(e->type, mapped(env.var, e.as<VarRef>()->id)); break;
      case ExprKind::Load: {
        auto n = e.as<Load>();
        out = Load::make(e->type, n->array, rename(n->index, env, memo), n->subscripts);
        break;
      }
      case ExprKind::Op: {
        auto n = e.as<Op>();
        out = Op::make(e->type, n->op, rename(n->args[0], env, memo), rename(n->args[1], env, memo),
                       rename(n->args[2], env, memo));
        break;
      }
      case ExprKind::Select: {
        auto n = e.as<Select>();
        out = Select::make(e->type, rename(n->cond, env, memo), rename(n->if_true, env, memo),
                           rename(n->if_false, env, memo));
        break;
      }
      case ExprKind::Cast: out = Cast::make(e->type, rename(e.as<Cast>()->value, env, memo)); break;
      case ExprKind::TexSample: {
        auto n = e.as<TexSample>();
        out = TexSample::make(e->type, n->param, rename(n->u, env, memo), rename(n->v, env, memo),
                              rename(n->w, env, memo));
        break;
      }
      default: break;  // constants, parameters, shapes, loop indices
    }
    memo.emplace(e.get(), out);
    return out;
  }
  Expr rename(const Expr& e, const Env& env) {
    Memo memo;
    return rename(e, env, memo);
  }

  // ---- the forward replay -------------------------------------------------------------------------------

  // Whether replaying s changes anything later statements read: the Vars declared outside it.
  static bool changes_state(const Stmt& s) { return !vars_changed(s).empty() || !locals_changed(s).empty(); }

  void replay_block(const std::vector<Stmt>& items, Env& env, std::vector<Stmt>& out) {
    for (const Stmt& s : items) replay(s, env, out);
  }

  // s's forward work without its side effects (stores, atomics, prints); binds s's Lets and Vars in env.
  void replay(const Stmt& s, Env& env, std::vector<Stmt>& out) {
    switch (s->kind) {
      case StmtKind::Let: {
        auto n = s.as<Let>();
        const int id = new_let(let_type(n->id));
        out.push_back(Let::make(id, rename(n->value, env), s->loc));
        env.let[n->id] = id;
        break;
      }
      case StmtKind::DeclareVar: {
        auto n = s.as<DeclareVar>();
        const int id = new_var(var_type(n->id), var_name(n->id));
        out.push_back(DeclareVar::make(id, rename(n->init, env), s->loc));
        env.var[n->id] = id;
        break;
      }
      case StmtKind::Assign: {
        auto n = s.as<Assign>();
        out.push_back(Assign::make(mapped(env.var, n->id), rename(n->value, env), s->loc));
        break;
      }
      case StmtKind::If: {
        if (!changes_state(s)) break;
        auto n = s.as<If>();
        Env then_env = env, else_env = env;
        std::vector<Stmt> then_out, else_out;
        replay_block(block_items(n->then_case), then_env, then_out);
        if (n->else_case) replay_block(block_items(n->else_case), else_env, else_out);
        out.push_back(If::make(rename(n->cond, env), Block::make(std::move(then_out)),
                               n->else_case ? Block::make(std::move(else_out)) : Stmt{}, s->loc));
        break;
      }
      case StmtKind::For: {
        if (!changes_state(s)) break;
        auto n = s.as<For>();
        out.push_back(replay_for(*n, rename(n->lo, env), rename(n->hi, env), env, s->loc));
        break;
      }
      case StmtKind::Block: replay_block(block_items(s), env, out); break;
      case StmtKind::Store: {
        // A local array is the work-item's own state; stores to the kernel's arrays are side effects.
        auto n = s.as<Store>();
        if (n->array.space == ArrayRef::Space::Local)
          out.push_back(Store::make(n->array, rename(n->index, env), n->subscripts, rename(n->value, env), s->loc));
        break;
      }
      default: break;  // Atomic, Print: side effects the replay leaves out
    }
  }

  // The loop `n` over [lo, hi) replayed (its bounds already renamed).
  Stmt replay_for(const For& n, const Expr& lo, const Expr& hi, const Env& env, SourceLoc loc) {
    Env inner = env;
    const int index = new_let(i64());
    inner.let[n.index] = index;
    std::vector<Stmt> body;
    replay_block(block_items(n.body), inner, body);
    return For::make(index, lo, hi, Block::make(std::move(body)), loc);
  }

  // ---- the backward sweep -------------------------------------------------------------------------------

  // The current value of original Var v, held in a fresh Let.
  Expr snapshot(int v, const Env& env, std::vector<Stmt>& out, SourceLoc loc) {
    const int id = new_let(var_type(v));
    out.push_back(Let::make(id, VarRef::make(var_type(v), mapped(env.var, v)), loc));
    return LetRef::make(var_type(v), id);
  }

  // Precondition: the Vars hold what they held before the block. Postcondition: they do again.
  void reverse_block(const std::vector<Stmt>& items, Env env, std::vector<Stmt>& out) {
    // The replay, with the needed Vars each statement changes saved before it.
    std::vector<std::vector<std::pair<int, Expr>>> saved(items.size());
    std::vector<std::vector<LocalSave>> saved_locals(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      for (int v : vars_changed(items[i]))
        if (var_needed(v)) saved[i].emplace_back(v, snapshot(v, env, out, items[i]->loc));
      saved_locals[i] = save_locals(items[i], env, out);
      replay(items[i], env, out);
    }
    // The adjoints of the block's own float Lets and Vars, zero until their uses (below them) add to them. A
    // Let read only by statements of this block gets its contributions here, as values, summed where its
    // own adjoint comes; one read in a nested if or loop, where contributions add up per pass, gets a Var.
    const std::unordered_set<int> nested = read_in_nested(items);
    for (const Stmt& s : items) {
      if (auto l = s.as<Let>(); l && differentiable(let_type(l->id).dtype) && !nested.count(l->id)) {
        env.adj_let[l->id] = kSummed;
        summed_.erase(l->id);
      } else if (l && differentiable(let_type(l->id).dtype)) {
        const int adj = new_var(let_type(l->id), "");
        out.push_back(DeclareVar::make(adj, FloatMath{let_type(l->id).dtype}.constant(0), s->loc));
        env.adj_let[l->id] = adj;
      }
      if (auto d = s.as<DeclareVar>(); d && differentiable(var_type(d->id).dtype)) {
        const std::string name = var_name(d->id);
        const int adj = new_var(var_type(d->id), name.empty() ? "" : name + ".grad");
        out.push_back(DeclareVar::make(adj, FloatMath{var_type(d->id).dtype}.constant(0), s->loc));
        env.adj_var[d->id] = adj;
      }
    }
    for (size_t i = items.size(); i-- > 0;) {
      for (const auto& [v, value] : saved[i]) out.push_back(Assign::make(mapped(env.var, v), value, items[i]->loc));
      restore_locals(saved_locals[i], out);
      reverse(items[i], env, out);
    }
  }

  // Adds g into the gradient of array parameter p at index (renamed).
  void accumulate(int p, const Expr& index, int subscripts, const Expr& g, std::vector<Stmt>& out, SourceLoc loc) {
    const int grad = gradient_[static_cast<size_t>(p)];
    if (grad < 0 || !g) return;
    const ArrayRef ref{ArrayRef::Space::Param, grad};
    if (facts_.exclusive[static_cast<size_t>(p)]) {
      add_into(ref, index, subscripts, g, out, loc);
    } else {
      out.push_back(Atomic::make(AtomicOp::Add, ref, index, subscripts, g, {}, new_let(g->type), loc));
    }
  }

  // The gradient array's value at index, and (clear) zero stored there after reading it.
  Expr take_gradient(int p, const Expr& index, int subscripts, bool clear, std::vector<Stmt>& out, SourceLoc loc) {
    const int grad = gradient_[static_cast<size_t>(p)];
    const DType t = k_.params[static_cast<size_t>(p)].dtype;
    if (grad < 0 || !differentiable(t)) return {};
    return take(ArrayRef{ArrayRef::Space::Param, grad}, t, index, subscripts, clear, out, loc);
  }

  // Precondition: the Vars hold what they held before s, and env binds every Let and Var visible to s.
  void reverse(const Stmt& s, const Env& env, std::vector<Stmt>& out) {
    switch (s->kind) {
      case StmtKind::Let: {
        auto n = s.as<Let>();
        auto adj = env.adj_let.find(n->id);
        if (adj == env.adj_let.end()) break;
        Expr g;
        if (adj->second == kSummed) {
          auto sum = summed_.find(n->id);
          if (sum == summed_.end()) break;  // nothing reads it with a derivative
          g = sum->second;
        } else {
          g = VarRef::make(let_type(n->id), adj->second);
        }
        if (auto load = n->value.as<Load>(); load && load->array.space == ArrayRef::Space::Local) {
          const int adj_local = adjoint_local_[static_cast<size_t>(load->array.index)];
          add_into(local_ref(adj_local), bind(rename(load->index, env), out, s->loc), 0, g, out, s->loc);
        } else if (auto load = n->value.as<Load>()) {
          accumulate(load->array.index, rename(load->index, env), load->subscripts, g, out, s->loc);
        } else {
          const int held = new_let(g->type);
          out.push_back(Let::make(held, g, s->loc));
          backprop(n->value, LetRef::make(g->type, held), env, out, s->loc);
        }
        break;
      }
      case StmtKind::DeclareVar: {
        auto n = s.as<DeclareVar>();
        auto adj = env.adj_var.find(n->id);
        if (adj == env.adj_var.end()) break;
        const int held = new_let(var_type(n->id));
        out.push_back(Let::make(held, VarRef::make(var_type(n->id), adj->second), s->loc));
        backprop(n->init, LetRef::make(var_type(n->id), held), env, out, s->loc);
        break;
      }
      case StmtKind::Assign: {
        auto n = s.as<Assign>();
        auto adj = env.adj_var.find(n->id);
        if (adj == env.adj_var.end()) break;
        const Type t = var_type(n->id);
        const int held = new_let(t);
        out.push_back(Let::make(held, VarRef::make(t, adj->second), s->loc));
        out.push_back(Assign::make(adj->second, FloatMath{t.dtype}.constant(0), s->loc));
        backprop(n->value, LetRef::make(t, held), env, out, s->loc);
        break;
      }
      case StmtKind::Store: {
        auto n = s.as<Store>();
        if (n->array.space == ArrayRef::Space::Local) {
          const int adj_local = adjoint_local_[static_cast<size_t>(n->array.index)];
          if (adj_local < 0) break;
          const Expr index = bind(rename(n->index, env), out, s->loc);
          backprop(
              n->value,
              take(local_ref(adj_local), k_.locals[static_cast<size_t>(adj_local)].dtype, index, 0, true, out, s->loc),
              env, out, s->loc);
          break;
        }
        Expr g = take_gradient(n->array.index, rename(n->index, env), n->subscripts, true, out, s->loc);
        if (g) backprop(n->value, g, env, out, s->loc);
        break;
      }
      case StmtKind::Atomic: {
        auto n = s.as<Atomic>();
        Expr g = take_gradient(n->array.index, rename(n->index, env), n->subscripts, false, out, s->loc);
        if (g) backprop(n->value, n->op == AtomicOp::Sub ? FloatMath{g->type.dtype}.neg(g) : g, env, out, s->loc);
        break;
      }
      case StmtKind::If: {
        auto n = s.as<If>();
        std::vector<Stmt> then_out, else_out;
        reverse_block(block_items(n->then_case), env, then_out);
        if (n->else_case) reverse_block(block_items(n->else_case), env, else_out);
        out.push_back(If::make(rename(n->cond, env), Block::make(std::move(then_out)),
                               n->else_case ? Block::make(std::move(else_out)) : Stmt{}, s->loc));
        break;
      }
      case StmtKind::For: reverse_for(s, env, out); break;
      case StmtKind::Block: TACK_UNREACHABLE("reverse: blocks are spliced by block_items");
      default: break;  // Print: nothing to undo; the rest is refused by analyze()
    }
  }

  // for i in [lo, hi): body, backwards: i = hi - 1 down to lo. Where the backward sweep of the body needs a Var
  // the loop carries, each backward iteration first recomputes the Vars from their values at the loop's entry.
  void reverse_for(const Stmt& s, const Env& env, std::vector<Stmt>& out) {
    const For& n = *s.as<For>();
    const SourceLoc loc = s->loc;
    const Expr lo = bind(rename(n.lo, env), out, loc), hi = bind(rename(n.hi, env), out, loc);
    std::vector<std::pair<int, Expr>> entry;
    for (int v : vars_changed(s))
      if (var_needed(v)) entry.emplace_back(v, snapshot(v, env, out, loc));
    // The local arrays the body changes and the backward sweep reads, copied at the loop's entry.
    std::vector<LocalSave> entry_locals;
    for (int l : locals_changed(s))
      if (facts_.local_needed[static_cast<size_t>(l)]) entry_locals.push_back(copy_whole(l, out));
    const int r = new_let(i64());
    std::vector<Stmt> body;
    const int i = new_let(i64());
    body.push_back(Let::make(
        i, Op::make(i64(), OpCode::Sub, Op::make(i64(), OpCode::Sub, hi, i64_const(1)), LetRef::make(i64(), r)), loc));
    if (!entry.empty() || !entry_locals.empty()) {
      for (const auto& [v, value] : entry) body.push_back(Assign::make(mapped(env.var, v), value, loc));
      restore_locals(entry_locals, body);
      body.push_back(replay_for(n, lo, LetRef::make(i64(), i), env, loc));
    }
    Env inner = env;
    inner.let[n.index] = i;
    reverse_block(block_items(n.body), inner, body);
    out.push_back(For::make(r, i64_const(0), Op::make(i64(), OpCode::Sub, hi, lo), Block::make(std::move(body)), loc));
    for (const auto& [v, value] : entry) out.push_back(Assign::make(mapped(env.var, v), value, loc));
    restore_locals(entry_locals, out);
  }

  // ---- expressions --------------------------------------------------------------------------------------

  // Adds g times the derivative of e with respect to each Let and Var it reads into their adjoints, node by
  // node in reverse topological order, so a value shared within e is differentiated once.
  void backprop(const Expr& e, const Expr& g, const Env& env, std::vector<Stmt>& out, SourceLoc loc) {
    if (!differentiable(e) || !g) return;
    std::vector<Expr> order;
    std::unordered_set<const ExprNode*> seen;
    postorder(e, seen, order);
    std::unordered_map<const ExprNode*, Expr> adj;
    adj[e.get()] = g;
    Memo memo;
    auto contribute = [&](const Expr& child, const Expr& x) {
      if (!x || !differentiable(child)) return;
      Expr& slot = adj[child.get()];
      slot = FloatMath{child->type.dtype}.add(slot, x);
    };
    for (size_t k = order.size(); k-- > 0;) {
      const Expr& node = order[k];
      auto it = adj.find(node.get());
      if (it == adj.end() || !it->second || !differentiable(node)) continue;
      const FloatMath m{node->type.dtype};
      switch (node->kind) {
        case ExprKind::LetRef: {
          auto a = env.adj_let.find(node.as<LetRef>()->id);
          if (a != env.adj_let.end() && a->second == kSummed) {
            // Held now: a contribution may read Vars the sweep restores before the Let's adjoint comes.
            const Expr c = bind(it->second, out, loc);
            auto [sum, fresh] = summed_.try_emplace(node.as<LetRef>()->id, c);
            if (!fresh) sum->second = bind(m.add(sum->second, c), out, loc);
          } else if (a != env.adj_let.end())
            out.push_back(Assign::make(a->second, m.add(VarRef::make(node->type, a->second), it->second), loc));
          break;
        }
        case ExprKind::VarRef: {
          auto a = env.adj_var.find(node.as<VarRef>()->id);
          if (a != env.adj_var.end())
            out.push_back(Assign::make(a->second, m.add(VarRef::make(node->type, a->second), it->second), loc));
          break;
        }
        case ExprKind::Op: {
          const Expr gn = bind(it->second, out, loc);
          const Expr renamed = rename(node, env, memo);
          const auto parts = partials(*renamed.as<Op>(), renamed);
          auto n = node.as<Op>();
          for (int a = 0; a < n->arity(); ++a)
            if (parts[static_cast<size_t>(a)])
              contribute(n->args[static_cast<size_t>(a)], m.mul(gn, parts[static_cast<size_t>(a)]));
          break;
        }
        case ExprKind::Select: {
          const Expr gn = bind(it->second, out, loc);
          auto n = node.as<Select>();
          const Expr cond = rename(n->cond, env, memo);
          contribute(n->if_true, m.select(cond, gn, {}));
          contribute(n->if_false, m.select(cond, {}, gn));
          break;
        }
        case ExprKind::Cast: {
          const Expr& value = node.as<Cast>()->value;
          if (differentiable(value)) contribute(value, Cast::make(value->type, it->second));
          break;
        }
        case ExprKind::TexSample: {
          const Expr gn = bind(it->second, out, loc);
          const auto parts = texture_partials(*rename(node, env, memo).as<TexSample>());
          auto n = node.as<TexSample>();
          contribute(n->u, m.mul(gn, parts[0]));
          contribute(n->v, m.mul(gn, parts[1]));
          contribute(n->w, m.mul(gn, parts[2]));
          break;
        }
        default: break;  // constants, scalar parameters (no gradient is asked of them), shapes
      }
    }
  }

  // The Lets that compound statements (if, for) of a block read.
  static std::unordered_set<int> read_in_nested(const std::vector<Stmt>& items) {
    std::unordered_set<int> out;
    for (const Stmt& item : items)
      if (item->kind == StmtKind::If || item->kind == StmtKind::For) out.merge(lets_read(item));
    return out;
  }

  static void postorder(const Expr& e, std::unordered_set<const ExprNode*>& seen, std::vector<Expr>& order) {
    if (!e || !seen.insert(e.get()).second) return;
    switch (e->kind) {
      case ExprKind::Op:
        for (const Expr& a : e.as<Op>()->args) postorder(a, seen, order);
        break;
      case ExprKind::Select:
        postorder(e.as<Select>()->cond, seen, order);
        postorder(e.as<Select>()->if_true, seen, order);
        postorder(e.as<Select>()->if_false, seen, order);
        break;
      case ExprKind::Cast: postorder(e.as<Cast>()->value, seen, order); break;
      case ExprKind::TexSample:
        postorder(e.as<TexSample>()->u, seen, order);
        postorder(e.as<TexSample>()->v, seen, order);
        postorder(e.as<TexSample>()->w, seen, order);
        break;
      default: break;  // a Load's index carries no gradient
    }
    order.push_back(e);
  }

  // Env::adj_let's mark for a Let whose adjoint is summed as values (summed_) rather than held in a Var.
  static constexpr int kSummed = -1;

  Kernel k_;
  KernelFacts facts_;
  std::vector<int> gradient_;             // by primal parameter: its gradient parameter, or -1
  std::vector<int> adjoint_local_;        // by primal local array: its adjoint's local array, or -1 (not float)
  std::unordered_map<int, Expr> summed_;  // by original Let: the sum of the contributions so far (a Let)
};

}  // namespace

Kernel adjoint(const Kernel& typed) { return Reverse(typed).run(); }

}  // namespace tack::autodiff
