// An IRMutator that rewrites each expression node once. Tack IR is a DAG: cse
// makes one node of equal subtrees, and code generators count a node's uses by
// identity (a product used twice is not contracted into an fma). A mutator that
// rewrote a shared node once per path would split it into copies and walk the
// DAG in exponential time; this one returns the first result for every later
// visit, so sharing in the input stays sharing in the output.
#pragma once

#include "ir/mutator.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tack::ir {

class MemoMutator : public IRMutator {
 public:
  using IRMutator::mutate;
  // The result of the node's first visit when it was seen before, else rewrite(e), remembered.
  Expr mutate(const Expr& e) override;

  // Forgets every result, for a pass whose rewrites hold only within a part of the kernel.
  void forget();

 protected:
  // A node's rewrite on its first visit: by default IRMutator's, through visit().
  virtual Expr rewrite(const Expr& e);

 private:
  // Keyed by address; the entry holds its input node so that the node cannot be
  // freed, and its address reused by another node, while the entry lives. A flat
  // table, not a node per entry: cse forgets it at every statement, and the
  // allocations were a third of optimizing a kernel (a first call's cost when its
  // code is in the disk cache).
  struct Entry {
    Expr input, output;
    std::size_t slot;  // where in slots_ it is found
  };
  const Expr* lookup(const ExprNode* n) const;
  void remember(const Expr& input, const Expr& output);
  void place(std::size_t entry);
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  // open addressing, linear probing: entry index + 1, 0 when empty
};

}  // namespace tack::ir
