// Workgroups as loops (see lower_workgroups.hpp). Three steps:
// 1. Analysis (analysis/group_uniformity, shared with the barrier rule every backend
//    checks): which statements must stay outside the work-item loops (they hold a
//    barrier or group reduction, leave a loop that does, or set a uniform Var under a
//    uniform if_), and which Lets and Vars are uniform.
// 2. Placement: each block that must run in lock step becomes a sequence of regions
//    (barrier-free runs of statements, one `for lid` loop each) and of the uniform
//    statements between them (control flow with uniform conditions, the serial
//    fold of a group reduction, uniform Lets hoisted out of the regions).
// 3. Emission: a per-item value used in a later region than its own is recomputed
//    there when it is a small pure expression of the local id and uniform values,
//    else stored to a 256-element shared array where it is defined and loaded back.
#include "passes/lower_workgroups.hpp"

#include "abi/group_size.hpp"
#include "analysis/group_uniformity.hpp"
#include "ir/check.hpp"
#include "ir/memo_mutator.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::passes {
namespace {

using namespace tack::ir;

constexpr std::int64_t kGroupSize = abi::kGroupSize;  // docs/language.md §12
// A per-item value recomputed in a later region may cost at most this many nodes;
// anything bigger (or holding a load) is spilled to a shared array instead.
constexpr int kRematerializeNodes = 16;

Type i64() { return Type::strong(DType::I64); }
Expr i64_const(std::int64_t v) { return Const::make_int(i64(), v); }

bool reads_memory(const Expr& e) {
  bool found = false;
  std::unordered_set<const ExprNode*> seen;
  walk(e, seen, [&](const Expr& x) { found = found || x->kind == ExprKind::Load || x->kind == ExprKind::TexSample; });
  return found;
}

bool writes_memory(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const Stmt& c) { found = found || c->kind == StmtKind::Store || c->kind == StmtKind::Atomic; });
  return found;
}

// Maps group values to their loop form and renames Lets and Vars. Memoized per node,
// so a shared subexpression stays one node (llvm_gen's contraction rule counts uses
// by node identity).
class Rewriter : public MemoMutator {
 public:
  Rewriter(Expr lid, Expr num_groups) : lid_(std::move(lid)), num_groups_(std::move(num_groups)) {}

  std::unordered_map<int, int> lets, vars;

 protected:
  Expr visit(const GroupValue* n, const Expr&) override {
    switch (n->field) {
      case GroupField::LocalId: TACK_CHECK(lid_); return lid_;
      case GroupField::GroupId: return LoopIndex::make(0);
      case GroupField::GroupSize: return i64_const(kGroupSize);
      case GroupField::NumGroups: return num_groups_;
    }
    TACK_UNREACHABLE("lower_workgroups: unknown group field");
  }
  Expr visit(const LetRef* n, const Expr& self) override {
    auto it = lets.find(n->id);
    return it == lets.end() ? self : LetRef::make(n->type, it->second);
  }
  Expr visit(const VarRef* n, const Expr& self) override {
    auto it = vars.find(n->id);
    return it == vars.end() ? self : VarRef::make(n->type, it->second);
  }
  Stmt visit(const Assign* n, const Stmt& self) override {
    Expr v = mutate(n->value);
    int id = var(n->id);
    return v.same_as(n->value) && id == n->id ? self : Assign::make(id, v, n->loc);
  }
  Stmt visit(const DeclareVar* n, const Stmt& self) override {
    Expr v = mutate(n->init);
    int id = var(n->id);
    return v.same_as(n->init) && id == n->id ? self : DeclareVar::make(id, v, n->loc);
  }

 private:
  int var(int id) const {
    auto it = vars.find(id);
    return it == vars.end() ? id : it->second;
  }
  Expr lid_, num_groups_;
};

// Local arrays of a kernel with barriers or group reductions: a work-item's elements
// may live across regions, whose work-item loops reuse one another's storage, so each
// becomes a shared array of 256 copies, element i of work-item lid at i * 256 + lid
// (consecutive work-items side by side: one vector access per gang at a uniform i).
// Without collectives the body is one region and local arrays stay per work-item.
class LocalsToShared : public IRMutator {
 public:
  explicit LocalsToShared(Kernel& k) {
    for (const LocalArray& a : k.locals) {
      k.shared.push_back({a.dtype, a.count * kGroupSize});
      shared_.push_back(static_cast<int>(k.shared.size()) - 1);
    }
    k.locals.clear();
  }

 protected:
  using IRMutator::visit;
  Expr visit(const Load* n, const Expr& self) override {
    if (n->array.space != ArrayRef::Space::Local) return IRMutator::visit(n, self);
    return Load::make(n->type, to_shared(n->array), spread(n->index), 0);
  }
  Stmt visit(const Store* n, const Stmt& self) override {
    if (n->array.space != ArrayRef::Space::Local) return IRMutator::visit(n, self);
    return Store::make(to_shared(n->array), spread(n->index), 0, mutate(n->value), n->loc);
  }

 private:
  ArrayRef to_shared(ArrayRef a) const { return {ArrayRef::Space::Shared, shared_[static_cast<std::size_t>(a.index)]}; }
  Expr spread(const Expr& index) {
    Expr i = mutate(index);
    return Op::make(i64(), OpCode::Add, Op::make(i64(), OpCode::Mul, i, i64_const(kGroupSize)),
                    GroupValue::make(GroupField::LocalId));
  }
  std::vector<int> shared_;
};

Kernel locals_to_shared(const Kernel& k) {
  if (k.locals.empty()) return k;
  bool collective = false;
  for_each_stmt(k.body, [&](const Stmt& s) {
    collective = collective || s->kind == StmtKind::Barrier || s->kind == StmtKind::GroupReduce;
  });
  if (!collective) return k;
  Kernel out = k;
  LocalsToShared rw(out);
  out.body = rw.mutate(k.body);
  return out;
}

class Lowering {
 public:
  explicit Lowering(const Kernel& k) : k_(k), out_(k), u_(k) {}

  Kernel run() {
    TACK_CHECK(k_.typed && k_.launch == LaunchKind::Workgroup && k_.dims.size() == 1);
    std::vector<Stmt> body;
    // Shared arrays start zeroed in every group (docs/language.md §12).
    for (std::size_t s = 0; s < k_.shared.size(); ++s) {
      const SharedArray& a = k_.shared[s];
      if (a.count <= 0) continue;
      int z = new_let(i64());
      Stmt store =
          Store::make({ArrayRef::Space::Shared, static_cast<int>(s)}, LetRef::make(i64(), z), 0, zero(a.dtype));
      body.push_back(For::make(z, i64_const(0), i64_const(a.count), store, k_.loc));
    }
    Stmt skeleton = lower_block(k_.body);
    plan_values();
    Filler fill(*this);
    for (Stmt& s : block_items(fill.mutate(skeleton))) body.push_back(std::move(s));
    out_.body = Block::make(std::move(body), k_.body->loc);
    return std::move(out_);
  }

 private:
  // ---- step 2: placement ------------------------------------------------------------

  struct Region {
    int lid;                  // the Let id of the work-item loop's index
    std::vector<Stmt> stmts;  // original statements, and the stores feeding group reductions
    const StmtNode* placeholder;
  };

  // Lowers a block run in lock step; regions are left as placeholders for step 3.
  Stmt lower_block(const Stmt& block) {
    const std::vector<Stmt> items = block_items(block);
    std::vector<Stmt> out, hoisted;
    int open = -1;
    auto region = [&]() -> Region& {
      if (open < 0) {
        open = static_cast<int>(regions_.size());
        regions_.push_back({new_let(i64()), {}, nullptr});
      }
      return regions_[static_cast<std::size_t>(open)];
    };
    auto close = [&] {
      if (open < 0) return;
      for (Stmt& h : hoisted) out.push_back(std::move(h));
      hoisted.clear();
      Stmt p = Block::make({});
      regions_[static_cast<std::size_t>(open)].placeholder = p.get();
      placeholders_[p.get()] = open;
      out.push_back(std::move(p));
      open = -1;
    };
    // Whether the open region writes memory: a uniform load may not move before it.
    bool open_writes = false;
    // A uniform statement moved before the open region (its values do not depend on
    // it), unless it loads what the region may have written: then the region ends first.
    auto hoist = [&](Stmt s, const Expr& value) {
      if (open >= 0 && open_writes && reads_memory(value)) close();
      (open < 0 ? out : hoisted).push_back(std::move(s));
    };
    Rewriter uniform_rw(Expr{}, k_.dims[0]);

    for (const Stmt& s : items) {
      if (!u_.lock_step(s)) {
        if (auto n = s.as<Let>(); n && u_.let_uniform(n->id)) {
          hoist(uniform_rw.mutate(s), n->value);
        } else if (auto d = s.as<DeclareVar>(); d && u_.var_uniform(d->id)) {
          hoist(uniform_rw.mutate(s), d->init);
        } else if (auto a = s.as<Assign>(); a && u_.var_uniform(a->id)) {
          close();  // the regions before and after see different values
          out.push_back(uniform_rw.mutate(s));
        } else {
          if (open < 0) open_writes = false;
          region().stmts.push_back(s);
          open_writes = open_writes || writes_memory(s);
        }
        continue;
      }
      switch (s->kind) {
        case StmtKind::Barrier: close(); break;  // the regions around it run one after the other
        case StmtKind::GroupReduce: {
          auto n = s.as<GroupReduce>();
          DType t = n->value->type.dtype;
          ArrayRef scratch = scratch_array(t);
          region().stmts.push_back(Store::make(scratch, GroupValue::make(GroupField::LocalId), 0, n->value, s->loc));
          close();
          fold(n, scratch, out);
          break;
        }
        case StmtKind::For: {
          auto n = s.as<For>();
          if (!u_.uniform(n->lo) || !u_.uniform(n->hi)) u_.refuse(s);
          close();
          out.push_back(
              For::make(n->index, uniform_rw.mutate(n->lo), uniform_rw.mutate(n->hi), lower_block(n->body), s->loc));
          break;
        }
        case StmtKind::If: {
          auto n = s.as<If>();
          if (!u_.uniform(n->cond)) u_.refuse(s);
          close();
          out.push_back(If::make(uniform_rw.mutate(n->cond), lower_block(n->then_case),
                                 n->else_case ? lower_block(n->else_case) : Stmt{}, s->loc));
          break;
        }
        case StmtKind::Loop:
          close();
          out.push_back(Loop::make(lower_block(s.as<Loop>()->body), s->loc));
          break;
        case StmtKind::Break:
        case StmtKind::Continue:
          close();
          out.push_back(s);
          break;
        default: TACK_UNREACHABLE("lower_workgroups: a statement kind cannot hold a barrier");
      }
    }
    close();
    return Block::make(std::move(out), block ? block->loc : SourceLoc{});
  }

  // result = v[0] op v[1] op ... op v[255], left to right as the interpreter folds.
  void fold(const GroupReduce* n, ArrayRef scratch, std::vector<Stmt>& out) {
    Type t = n->value->type;
    OpCode op = n->op == ReduceOp::Add ? OpCode::Add : n->op == ReduceOp::Min ? OpCode::Min : OpCode::Max;
    int first = new_let(t), acc = new_var(t), j = new_let(i64()), x = new_let(t);
    out.push_back(Let::make(first, Load::make(t, scratch, i64_const(0), 0), n->loc));
    out.push_back(DeclareVar::make(acc, LetRef::make(t, first), n->loc));
    Stmt step = Block::make({Let::make(x, Load::make(t, scratch, LetRef::make(i64(), j), 0), n->loc),
                             Assign::make(acc, Op::make(t, op, VarRef::make(t, acc), LetRef::make(t, x)), n->loc)},
                            n->loc);
    out.push_back(For::make(j, i64_const(1), i64_const(kGroupSize), step, n->loc));
    out.push_back(Let::make(n->result, VarRef::make(t, acc), n->loc));
  }

  // ---- step 3: values across regions, and emission ----------------------------------

  // Finds, for every region, the per-item Lets and Vars it needs from other regions.
  void plan_values() {
    std::size_t lets = k_.lets.size(), vars = k_.vars.size();
    let_region_.assign(lets, -1);
    let_order_.assign(lets, -1);
    let_value_.assign(lets, Expr{});
    var_home_.assign(vars, -1);
    needs_.resize(regions_.size());
    var_regions_.assign(vars, {});
    var_written_.resize(regions_.size());
    int order = 0;
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      int ri = static_cast<int>(r);
      std::set<int> used;
      for (const Stmt& top : regions_[r].stmts) {
        if (auto n = top.as<Let>()) let_value_[static_cast<std::size_t>(n->id)] = n->value;
        for_each_stmt(top, [&](const Stmt& s) {
          int def = s.as<Let>()      ? s.as<Let>()->id
                    : s.as<Atomic>() ? s.as<Atomic>()->result
                    : s.as<For>()    ? s.as<For>()->index
                                     : -1;
          if (def >= 0) {
            let_region_[static_cast<std::size_t>(def)] = ri;
            let_order_[static_cast<std::size_t>(def)] = order++;
          }
          if (auto d = s.as<DeclareVar>()) {
            var_home_[static_cast<std::size_t>(d->id)] = ri;
            var_regions_[static_cast<std::size_t>(d->id)].insert(ri);
            var_written_[r].insert(d->id);
          }
          if (auto a = s.as<Assign>(); a && !u_.var_uniform(a->id)) {
            var_regions_[static_cast<std::size_t>(a->id)].insert(ri);
            var_written_[r].insert(a->id);
          }
          std::unordered_set<const ExprNode*> seen;
          for (const Expr& e : own_exprs(s)) {
            walk(e, seen, [&](const Expr& x) {
              if (auto l = x.as<LetRef>(); l && !u_.let_uniform(l->id)) used.insert(l->id);
              if (auto v = x.as<VarRef>(); v && !u_.var_uniform(v->id))
                var_regions_[static_cast<std::size_t>(v->id)].insert(ri);
            });
          }
        });
      }
      for (int id : used) {
        TACK_CHECK(let_region_[static_cast<std::size_t>(id)] >= 0);  // per-item Lets live in regions
        if (let_region_[static_cast<std::size_t>(id)] != ri) needs_[r].insert(id);
      }
    }
    // Recomputed values bring what they are computed from.
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      std::vector<int> todo(needs_[r].begin(), needs_[r].end());
      while (!todo.empty()) {
        int id = todo.back();
        todo.pop_back();
        if (!rematerialize(id)) continue;
        std::unordered_set<const ExprNode*> seen;
        walk(let_value_[static_cast<std::size_t>(id)], seen, [&](const Expr& x) {
          auto l = x.as<LetRef>();
          if (l && !u_.let_uniform(l->id) && needs_[r].insert(l->id).second) todo.push_back(l->id);
        });
      }
    }
  }

  // A per-item Let cheap to recompute from the local id and uniform values.
  bool rematerialize(int id) {
    auto it = remat_.find(id);
    if (it != remat_.end()) return it->second;
    const Expr& v = let_value_[static_cast<std::size_t>(id)];
    bool ok = static_cast<bool>(v);  // Atomic results have no value to recompute
    int nodes = 0;
    std::vector<int> deps;
    if (ok) {
      std::unordered_set<const ExprNode*> seen;
      walk(v, seen, [&](const Expr& x) {
        ++nodes;
        if (x->kind == ExprKind::Load || x->kind == ExprKind::VarRef || x->kind == ExprKind::TexSample) ok = false;
        if (auto l = x.as<LetRef>(); l && !u_.let_uniform(l->id)) deps.push_back(l->id);
      });
    }
    ok = ok && nodes <= kRematerializeNodes;
    for (int d : deps) ok = ok && rematerialize(d);
    remat_[id] = ok;
    return ok;
  }

  // Replaces each region's placeholder with its work-item loop.
  class Filler : public IRMutator {
   public:
    explicit Filler(Lowering& l) : l_(l) {}

   protected:
    Stmt visit(const Block* n, const Stmt& self) override {
      auto it = l_.placeholders_.find(n);
      if (it != l_.placeholders_.end()) return l_.emit_region(it->second);
      return IRMutator::visit(n, self);
    }

   private:
    Lowering& l_;
  };

  Stmt emit_region(int r) {
    const Region& reg = regions_[static_cast<std::size_t>(r)];
    Expr lid = LetRef::make(i64(), reg.lid);
    Rewriter rw(lid, k_.dims[0]);
    std::vector<Stmt> body;
    // Values of earlier regions, in the order they were defined (a recomputed value's
    // inputs come before it).
    std::vector<int> needed(needs_[static_cast<std::size_t>(r)].begin(), needs_[static_cast<std::size_t>(r)].end());
    std::sort(needed.begin(), needed.end(), [&](int a, int b) {
      return let_order_[static_cast<std::size_t>(a)] < let_order_[static_cast<std::size_t>(b)];
    });
    for (int id : needed) {
      Type t = k_.lets[static_cast<std::size_t>(id)];
      int copy = new_let(t);
      Expr value = rematerialize(id) ? rw.mutate(let_value_[static_cast<std::size_t>(id)])
                                     : Load::make(t, let_spill(id), lid, 0);
      body.push_back(Let::make(copy, value));
      rw.lets[id] = copy;
    }
    // Per-item Vars that other regions also touch: a local copy, written back at the end.
    std::vector<int> spilled_vars;
    for (std::size_t v = 0; v < k_.vars.size(); ++v) {
      if (var_regions_[v].size() > 1 && var_regions_[v].count(r)) spilled_vars.push_back(static_cast<int>(v));
    }
    for (int v : spilled_vars) {
      if (var_home_[static_cast<std::size_t>(v)] == r) continue;  // declared here: the original Var
      Type t = k_.vars[static_cast<std::size_t>(v)];
      int loaded = new_let(t), copy = new_var(t);
      body.push_back(Let::make(loaded, Load::make(t, var_spill(v), lid, 0)));
      body.push_back(DeclareVar::make(copy, LetRef::make(t, loaded)));
      rw.vars[v] = copy;
    }
    for (const Stmt& s : reg.stmts) {
      body.push_back(rw.mutate(s));
      int def = s.as<Let>() ? s.as<Let>()->id : s.as<Atomic>() ? s.as<Atomic>()->result : -1;
      if (def >= 0 && spilled_let(def)) {
        Type t = k_.lets[static_cast<std::size_t>(def)];
        body.push_back(Store::make(let_spill(def), lid, 0, LetRef::make(t, def), s->loc));
      }
    }
    for (int v : spilled_vars) {
      if (!var_written_[static_cast<std::size_t>(r)].count(v)) continue;
      auto it = rw.vars.find(v);
      Type t = k_.vars[static_cast<std::size_t>(v)];
      body.push_back(Store::make(var_spill(v), lid, 0, VarRef::make(t, it == rw.vars.end() ? v : it->second)));
    }
    out_.work_item_loops.push_back(reg.lid);
    return For::make(reg.lid, i64_const(0), i64_const(kGroupSize), Block::make(std::move(body)));
  }

  // A per-item Let some other region loads rather than recomputes.
  bool spilled_let(int id) {
    if (spilled_lets_.empty()) {
      spilled_lets_.assign(k_.lets.size(), 0);
      for (const auto& n : needs_)
        for (int x : n)
          if (!rematerialize(x)) spilled_lets_[static_cast<std::size_t>(x)] = 1;
    }
    return spilled_lets_[static_cast<std::size_t>(id)] != 0;
  }

  // ---- new Lets, Vars and shared arrays ---------------------------------------------

  int new_let(Type t) {
    out_.lets.push_back(t);
    return static_cast<int>(out_.lets.size()) - 1;
  }
  int new_var(Type t) {
    out_.vars.push_back(t);
    return static_cast<int>(out_.vars.size()) - 1;
  }
  ArrayRef new_shared(DType t) {
    out_.shared.push_back({t, kGroupSize});
    return {ArrayRef::Space::Shared, static_cast<int>(out_.shared.size()) - 1};
  }
  ArrayRef scratch_array(DType t) {
    auto it = scratch_.find(t);
    if (it == scratch_.end()) it = scratch_.emplace(t, new_shared(t)).first;
    return it->second;
  }
  ArrayRef let_spill(int id) {
    auto it = let_spill_.find(id);
    if (it == let_spill_.end())
      it = let_spill_.emplace(id, new_shared(k_.lets[static_cast<std::size_t>(id)].dtype)).first;
    return it->second;
  }
  ArrayRef var_spill(int id) {
    auto it = var_spill_.find(id);
    if (it == var_spill_.end())
      it = var_spill_.emplace(id, new_shared(k_.vars[static_cast<std::size_t>(id)].dtype)).first;
    return it->second;
  }
  static Expr zero(DType t) {
    if (t == DType::Bool) return Const::make_bool(false);
    if (is_float(t)) return Const::make_float(Type::strong(t), 0.0);
    return Const::make_int(Type::strong(t), 0);
  }

  const Kernel& k_;
  Kernel out_;
  analysis::GroupUniformity u_;
  // Placement.
  std::vector<Region> regions_;
  std::unordered_map<const StmtNode*, int> placeholders_;
  std::map<DType, ArrayRef> scratch_;
  // Values across regions.
  std::vector<int> let_region_, let_order_, var_home_;
  std::vector<Expr> let_value_;
  std::vector<std::set<int>> needs_;
  std::vector<std::set<int>> var_regions_;
  std::vector<std::set<int>> var_written_;
  std::unordered_map<int, bool> remat_;
  std::vector<char> spilled_lets_;
  std::map<int, ArrayRef> let_spill_, var_spill_;
};

}  // namespace

ir::Kernel lower_workgroups(const ir::Kernel& typed) { return Lowering(locals_to_shared(typed)).run(); }

}  // namespace tack::passes
