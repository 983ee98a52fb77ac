// The memo of MemoMutator: one lookup per visit, one rewrite per node.
#include "ir/memo_mutator.hpp"

#include "ir/node_set.hpp"

#include <algorithm>

namespace tack::ir {
Expr MemoMutator::mutate(const Expr& e) {
  if (!e) return e;
  if (const Expr* done = lookup(e.get())) return *done;
  // Not remembered before the rewrite: it visits the children, whose entries may grow the table.
  Expr r = rewrite(e);
  remember(e, r);
  return r;
}

const Expr* MemoMutator::lookup(const ExprNode* n) const {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t s = address_hash(n) & mask;; s = (s + 1) & mask) {
    const std::uint32_t i = slots_[s];
    if (i == 0) return nullptr;
    if (entries_[i - 1].input.get() == n) return &entries_[i - 1].output;
  }
}

void MemoMutator::remember(const Expr& input, const Expr& output) {
  // At most half full, so a probe ends soon.
  if ((entries_.size() + 1) * 2 > slots_.size()) {
    slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), 0);
    for (std::size_t i = 0; i < entries_.size(); ++i) place(i);
  }
  entries_.push_back({input, output, 0});
  place(entries_.size() - 1);
}

void MemoMutator::place(std::size_t entry) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t s = address_hash(entries_[entry].input.get()) & mask;
  while (slots_[s] != 0) s = (s + 1) & mask;
  slots_[s] = static_cast<std::uint32_t>(entry + 1);
  entries_[entry].slot = s;
}

void MemoMutator::forget() {
  for (const Entry& e : entries_) slots_[e.slot] = 0;
  entries_.clear();
}

Expr MemoMutator::rewrite(const Expr& e) { return IRMutator::mutate(e); }

}  // namespace tack::ir
