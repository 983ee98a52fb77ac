// Which values of a workgroup kernel are uniform: the same for every work-item of a
// group. One analysis serves the barrier rule every backend enforces at the call
// (passes/check_barriers) and the CPU's lowering of groups to loops
// (passes/lower_workgroups), so the two can never disagree on what is refused.
// The CPU's gangs then run the lowered work-item loops with LaneUniformity
// (lane_uniformity.hpp), which shares its escape rule. This analysis is coarser on
// purpose: whatever a loop without a barrier computes counts as per-item, since
// lower_workgroups runs such a loop inside a work-item loop and cannot hoist it.
//
// Uniform: parameters, shapes, group_id(), num_groups(), constants, the indices of
// loops with uniform bounds, group reductions, loads at uniform indices, and Lets and
// Vars computed only from those at positions every work-item of the group runs
// together. A load at a uniform index is uniform because every work-item reads the
// same element; a work-item that wrote that element without a barrier in between
// would be a race, which the language already forbids (docs/language.md §12).
#pragma once

#include "ir/ir.hpp"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::analysis {

class GroupUniformity {
 public:
  // Analyses a typed LaunchKind::Workgroup kernel.
  explicit GroupUniformity(const ir::Kernel& k);

  // Whether s holds a barrier or a group reduction.
  bool collective(const ir::Stmt& s) const;
  // The first break_ or continue_ in s that leaves s (not one of a loop inside s).
  static const ir::StmtNode* escape(const ir::Stmt& s);
  // Whether s must run once for the whole group in lock step: it holds a barrier or
  // group reduction, leaves a loop that does, or is an if_ with a uniform condition
  // that assigns a uniform Var.
  bool lock_step(const ir::Stmt& s) const;

  bool uniform(const ir::Expr& e) const;
  bool let_uniform(int id) const { return let_uniform_[static_cast<std::size_t>(id)] != 0; }
  bool var_uniform(int id) const { return var_uniform_[static_cast<std::size_t>(id)] != 0; }

  // The first lock-step if_, for_range or loop condition (in program order) that is
  // not uniform, or null when every work-item of a group reaches each barrier together.
  ir::Stmt first_divergent() const;
  // Throws tack::InvalidArgument naming the kernel, the barrier (or group reduction,
  // break_ or continue_) and the line of the divergent control flow `flow` around it.
  [[noreturn]] void refuse(const ir::Stmt& flow) const;

 private:
  void analyse();
  void scan(const ir::Stmt& block);
  bool assigns_uniform_var(const ir::Stmt& s) const;
  ir::Stmt divergent_in(const ir::Stmt& block) const;

  const ir::Kernel& k_;
  mutable std::unordered_map<const ir::StmtNode*, bool> collective_;
  // One pass of the scan: the values Lets and Vars take at uniform positions.
  std::vector<std::vector<ir::Expr>> let_values_, var_values_;
  std::vector<char> let_at_uniform_, var_declared_uniform_, var_bad_;
  // Ifs with a uniform condition the scan looked into; Lets bound inside them.
  std::unordered_set<const ir::StmtNode*> transparent_ifs_;
  struct IfLets {
    ir::Stmt node;
    std::vector<int> lets;
  };
  std::unordered_map<const ir::StmtNode*, IfLets> if_lets_;
  std::vector<const ir::StmtNode*> enclosing_;  // the transparent ifs around the scan, innermost last
  std::vector<char> let_forced_off_;
  std::vector<char> let_uniform_, var_uniform_;
};

}  // namespace tack::analysis
