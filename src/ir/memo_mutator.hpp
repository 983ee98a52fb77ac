// An IRMutator that rewrites each expression node once. Tack IR is a DAG: cse
// makes one node of equal subtrees, and code generators count a node's uses by
// identity (a product used twice is not contracted into an fma). A mutator that
// rewrote a shared node once per path would split it into copies and walk the
// DAG in exponential time; this one returns the first result for every later
// visit, so sharing in the input stays sharing in the output.
#pragma once

#include "ir/mutator.hpp"

#include <unordered_map>

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
  // freed, and its address reused by another node, while the entry lives.
  struct Entry {
    Expr input, output;
  };
  std::unordered_map<const ExprNode*, Entry> memo_;
};

}  // namespace tack::ir
