// The last step of a trace: one order for the lets of a kernel, whatever order
// the front end evaluated operands in (docs/language.md, section 3).
#pragma once

#include "ir/ir.hpp"

namespace tack::lang::detail {

// Reading an array element or a Var records a Let when it is evaluated, so the
// traced IR shows the order in which the front end evaluated the operands of an
// expression: GCC evaluates a call's arguments right to left, Clang and Python
// left to right. This puts the Lets of each run of consecutive Let statements
// (reads with no write, atomic, barrier, Var assignment or control flow between
// them) in one canonical order and numbers every Let by where it is defined, so
// that any evaluation order of the same expressions gives the same IR, hash and
// cache key. Only Lets move, and only within their run: no read crosses a write.
//
// The order is the one a right-to-left evaluation gives, GCC's, so that an
// expression written as one statement keeps the IR GCC gave it (reads named in
// earlier statements may move: the IR cannot tell them from one statement's,
// which Clang records in the same order). A Let comes after the Lets of the
// run its own value reads, and otherwise where a statement after the run first
// uses it, each statement's and expression's operands visited last to first
// (a[i] = v: v before i; select(c, t, f): f, t, c), but for those of <<, >>, &&
// and ||, which C++17 evaluates left to right even when overloaded. The Lets
// nothing after the run reads go last, ordered by their text.
void canonicalize_order(ir::Kernel& k);

}  // namespace tack::lang::detail
