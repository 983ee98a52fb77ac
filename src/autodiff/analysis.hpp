// What differentiating a typed kernel needs to know before writing any code: the constructs it refuses (with
// the error naming them and their line), which values the backward sweep reads again, and how each array
// parameter is accessed (docs/autodiff.md).
#pragma once

#include "ir/ir.hpp"

#include <set>
#include <string>
#include <vector>

namespace tack::autodiff {

enum class Mode { Reverse, Forward };

struct KernelFacts {
  // By Let id and Var id: whether reverse mode reads the value again (a derivative that needs it, a condition,
  // a loop bound, an index), directly or through other values. Only these are restored for the backward sweep.
  std::vector<bool> let_needed, var_needed;
  // By local array (Kernel::locals): whether the backward sweep reads values it holds, so the values a statement
  // overwrote are put back before that statement's adjoint.
  std::vector<bool> local_needed;
  // By parameter: an array the kernel stores into or updates atomically.
  std::vector<bool> written;
  // By parameter: every access of the array is at the work-item's own element (y[i] in a 1-D launch, y[i, j]
  // over a 2-D one): its gradient takes a plain read-modify-write, not an atomic add.
  std::vector<bool> own_element;
  // By parameter: no two work-items touch one element of the array (own_element, or reads of distinct planes
  // through shifts of the work-item's index, as a periodic stencil's pull does): its gradient needs no atomics.
  std::vector<bool> exclusive;
};

// Throws NotDifferentiable for a construct `mode` cannot differentiate, naming the kernel, the construct and
// its line: barriers, group reductions, shared memory, while loops, break and continue (reverse mode), atomics
// other than add and sub on float arrays, an atomic's old value, texture samples, and (reverse mode) an array read at
// other elements than the ones the kernel overwrites, or read where the backward sweep needs the old value.
KernelFacts analyze(const ir::Kernel& typed, Mode mode);

// By primal parameter: the derivative kernel's gradient (tangent) parameter for it (Param::gradient_of), or -1.
std::vector<int> gradient_params(const ir::Kernel& k);

// A fresh Let or Var id in k (a Var named `name` for inspect where it is not empty).
int new_let(ir::Kernel& k, ir::Type t);
int new_var(ir::Kernel& k, ir::Type t, const std::string& name);

// The Vars a statement assigns that are declared outside it: the state it changes for the statements after it.
std::set<int> vars_changed(const ir::Stmt& s);
// The local arrays (Kernel::locals) a statement stores into: per-work-item state it changes too.
std::set<int> locals_changed(const ir::Stmt& s);

}  // namespace tack::autodiff
