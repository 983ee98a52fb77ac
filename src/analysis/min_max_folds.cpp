// min_max_fold: the shape of a loop that only folds a float Var with min or max (min_max_folds.hpp).
#include "analysis/min_max_folds.hpp"

#include "ir/walk.hpp"

#include <unordered_set>

namespace tack::analysis {
namespace {
using namespace ir;

// Whether e reads Var `var`, directly or through one of `readers` (Lets whose value is that Var).
bool reads_var(const Expr& e, int var, const std::unordered_set<int>& readers) {
  bool reads = false;
  std::unordered_set<const ExprNode*> seen;
  walk(e, seen, [&](const Expr& x) {
    if (auto v = x.as<VarRef>()) reads = reads || v->id == var;
    if (auto l = x.as<LetRef>()) reads = reads || readers.count(l->id) > 0;
  });
  return reads;
}

bool is_var_read(const Expr& e, int var, const std::unordered_set<int>& readers) {
  if (auto v = e.as<VarRef>()) return v->id == var;
  if (auto l = e.as<LetRef>()) return readers.count(l->id) > 0;
  return false;
}

}  // namespace

std::optional<MinMaxFold> min_max_fold(const For& loop, const Kernel& k) {
  const std::vector<Stmt> items = block_items(loop.body);
  if (items.empty()) return std::nullopt;
  const auto* assign = items.back().as<Assign>();
  if (!assign) return std::nullopt;
  const DType t = k.vars[static_cast<std::size_t>(assign->id)].dtype;
  const auto* op = assign->value.as<Op>();
  if ((t != DType::F32 && t != DType::F64) || !op || (op->op != OpCode::Max && op->op != OpCode::Min))
    return std::nullopt;
  MinMaxFold fold;
  fold.var = assign->id;
  fold.is_max = op->op == OpCode::Max;
  std::unordered_set<int> readers;
  for (std::size_t i = 0; i + 1 < items.size(); ++i) {
    const auto* let = items[i].as<Let>();
    if (!let) return std::nullopt;
    if (auto v = let->value.as<VarRef>(); v && v->id == fold.var) {
      readers.insert(let->id);
      continue;
    }
    fold.lets.push_back(items[i]);
  }
  const bool first = is_var_read(op->args[0], fold.var, readers);
  const bool second = is_var_read(op->args[1], fold.var, readers);
  if (first == second) return std::nullopt;
  fold.var_first = first;
  fold.operand = op->args[first ? 1 : 0];
  if (reads_var(fold.operand, fold.var, readers)) return std::nullopt;
  for (const Stmt& s : fold.lets)
    if (reads_var(s.as<Let>()->value, fold.var, readers)) return std::nullopt;
  return fold;
}

}  // namespace tack::analysis
