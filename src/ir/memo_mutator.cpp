// The memo of MemoMutator: one lookup per visit, one rewrite per node.
#include "ir/memo_mutator.hpp"

namespace tack::ir {

Expr MemoMutator::mutate(const Expr& e) {
  if (!e) return e;
  auto it = memo_.find(e.get());
  if (it != memo_.end()) return it->second.output;
  // Not emplaced before the rewrite: it visits the children, whose entries may rehash the map.
  Expr r = rewrite(e);
  memo_.emplace(e.get(), Entry{e, r});
  return r;
}

void MemoMutator::forget() { memo_.clear(); }

Expr MemoMutator::rewrite(const Expr& e) { return IRMutator::mutate(e); }

}  // namespace tack::ir
