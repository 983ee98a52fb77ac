// Which for loops only fold a float Var with min or max (a row's maximum before a softmax, a bounding box): the
// CPU runs them first as a probe over order-preserving integer keys, which vectorizes, and keeps the loop as
// written for the rare rows where the order of the fold can show (the answer is a zero, or no number was seen).
#pragma once

#include "ir/ir.hpp"

#include <optional>
#include <vector>

namespace tack::analysis {

struct MinMaxFold {
  int var = -1;                // the f32 or f64 Var folded
  bool is_max = true;          // max, else min
  bool var_first = true;       // `v = max(v, e)` rather than `v = max(e, v)`
  ir::Expr operand;            // e: what each iteration folds in
  std::vector<ir::Stmt> lets;  // the body's Lets in order, less those that only read the Var
};

// The fold `loop` is, if its body is Lets and then one Assign `v = min/max(v, e)` of a float Var v that nothing
// else in the body reads (e and the Lets depend on no earlier iteration), in a typed kernel `k`.
std::optional<MinMaxFold> min_max_fold(const ir::For& loop, const ir::Kernel& k);

}  // namespace tack::analysis
