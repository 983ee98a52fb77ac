// share_subexpressions: per block, which nodes the statements share, then each bound in postorder before its
// first user; a node is rewritten once (the IR is a DAG) and then read through its Let everywhere after.
#include "autodiff/share_subexpressions.hpp"

#include "autodiff/analysis.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <unordered_map>
#include <unordered_set>

namespace tack::autodiff {
namespace {
using namespace ir;

class Sharing final : public IRMutator {
 public:
  explicit Sharing(Kernel& k) : k_(k) {}

  using IRMutator::mutate;
  Expr mutate(const Expr& e) override {
    if (!e) return e;
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    Expr out = IRMutator::mutate(e);
    memo_.emplace(e.get(), out);  // keyed by the input's nodes, which the input kernel keeps alive
    return out;
  }

 protected:
  Stmt visit(const Block* n, const Stmt& self) override {
    const std::vector<Stmt>& items = n->stmts;
    // How many of the block's statements read each candidate, and the first that does.
    std::unordered_map<const ExprNode*, int> users, first;
    for (size_t i = 0; i < items.size(); ++i) {
      std::unordered_set<const ExprNode*> here;
      for_each_stmt(items[i], [&](const Stmt& s) {
        for (const Expr& root : own_exprs(s))
          walk(root, here, [&](const Expr& e) {
            if (!candidate(e)) return;
            ++users[e.get()];
            first.emplace(e.get(), static_cast<int>(i));
          });
      });
    }
    // The shared ones, in postorder (operands first), by first user.
    std::vector<std::vector<Expr>> before(items.size());
    std::unordered_set<const ExprNode*> placed;
    const auto place = [&](const auto& self_fn, const Expr& e) -> void {
      if (!e || placed.count(e.get())) return;
      placed.insert(e.get());
      for (const Expr& x : operands(e)) self_fn(self_fn, x);
      auto u = users.find(e.get());
      if (u != users.end() && u->second >= 2 && !memo_.count(e.get()))
        before[static_cast<size_t>(first[e.get()])].push_back(e);
    };
    for (const Stmt& item : items)
      for_each_stmt(item, [&](const Stmt& s) {
        for (const Expr& root : own_exprs(s)) place(place, root);
      });
    std::vector<Stmt> out;
    bool changed = false;
    for (size_t i = 0; i < items.size(); ++i) {
      for (const Expr& e : before[i]) {
        const Expr value = IRMutator::mutate(e);
        const int id = new_let(k_, e->type);
        out.push_back(Let::make(id, value, items[i]->loc));
        memo_[e.get()] = LetRef::make(e->type, id);
        changed = true;
      }
      Stmt m = mutate(items[i]);
      changed |= !m.same_as(items[i]);
      if (m) out.push_back(std::move(m));
    }
    return changed ? Block::make(std::move(out), self->loc) : self;
  }

 private:
  static std::vector<Expr> operands(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Op: return {e.as<Op>()->args[0], e.as<Op>()->args[1], e.as<Op>()->args[2]};
      case ExprKind::Select: return {e.as<Select>()->cond, e.as<Select>()->if_true, e.as<Select>()->if_false};
      case ExprKind::Cast: return {e.as<Cast>()->value};
      default: return {};
    }
  }

  // A float operation whose value is the same in every statement that reads it: no Var, load or sample below.
  bool candidate(const Expr& e) {
    if (!is_float(e->type.dtype)) return false;
    if (e->kind != ExprKind::Op && e->kind != ExprKind::Select && e->kind != ExprKind::Cast) return false;
    return stable(e);
  }
  bool stable(const Expr& e) {
    if (!e) return true;
    auto it = stable_.find(e.get());
    if (it != stable_.end()) return it->second;
    bool out = true;
    switch (e->kind) {
      case ExprKind::Op:
      case ExprKind::Select:
      case ExprKind::Cast:
        for (const Expr& x : operands(e)) out = out && stable(x);
        break;
      case ExprKind::Const:
      case ExprKind::ScalarParam:
      case ExprKind::ArrayDim:
      case ExprKind::LoopIndex:
      case ExprKind::LetRef: break;
      default: out = false;  // VarRef, Load, TexSample and the rest: may differ from one statement to the next
    }
    stable_.emplace(e.get(), out);
    return out;
  }

  Kernel& k_;
  std::unordered_map<const ExprNode*, Expr> memo_;
  std::unordered_map<const ExprNode*, bool> stable_;
};

}  // namespace

Kernel share_subexpressions(const Kernel& typed) {
  Kernel k = typed;
  Sharing sharing(k);
  k.body = sharing.mutate(typed.body);
  return k;
}

}  // namespace tack::autodiff
