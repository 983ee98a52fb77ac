// Which values of a workgroup kernel are uniform: the same for every work-item of a
// group. The uniformity analysis (uniformity.hpp) with local_id() as the seed,
// run on the un-lowered kernel. It serves the barrier rule every backend enforces
// at the call (passes/check_barriers) and the CPU's lowering of groups to loops
// (passes/lower_workgroups), so the two can never disagree on what is refused.
// The CPU's gangs then run the lowered work-item loops with the same analysis as
// LaneUniformity (lane_uniformity.hpp).
//
// Its regions are coarser than the lanes' on purpose, because lower_workgroups
// runs per item whatever is not lock step: a loop without a barrier and an if_ on
// a per-item condition are Opaque (whatever they define is per-item), and so is
// an if_ on a uniform condition that assigns no uniform Var. What holds a barrier
// or group reduction runs in lock step (Same), divergent or not: first_divergent
// refuses it when its condition or bounds are not uniform.
#pragma once

#include "analysis/uniformity.hpp"
#include "ir/ir.hpp"

#include <unordered_map>

namespace tack::analysis {

class GroupUniformity : private Uniformity::Policy {
 public:
  // Analyses a typed LaunchKind::Workgroup kernel.
  explicit GroupUniformity(const ir::Kernel& k);

  // Whether s holds a barrier or a group reduction.
  bool collective(const ir::Stmt& s) const;
  // The first break_ or continue_ in s that leaves s (not one of a loop inside s).
  static const ir::StmtNode* escape(const ir::Stmt& s) { return Uniformity::escape(s); }
  // Whether s must run once for the whole group in lock step: it holds a barrier or
  // group reduction, leaves a loop that does, or is an if_ with a uniform condition
  // that assigns a uniform Var.
  bool lock_step(const ir::Stmt& s) const;

  bool uniform(const ir::Expr& e) const;
  bool let_uniform(int id) const { return !u_.let_varies(id); }
  bool var_uniform(int id) const { return !u_.var_varies(id); }

  // The first lock-step if_, for_range or loop condition (in program order) that is
  // not uniform, or null when every work-item of a group reaches each barrier together.
  ir::Stmt first_divergent() const;
  // Throws tack::InvalidArgument naming the kernel, the barrier (or group reduction,
  // break_ or continue_) and the line of the divergent control flow `flow` around it.
  [[noreturn]] void refuse(const ir::Stmt& flow) const;

 private:
  bool seed(const ir::Expr& leaf) const override;
  Uniformity::Region region(const ir::Stmt& s, const Uniformity& u) const override;
  bool assigns_uniform_var(const ir::Stmt& s) const;
  ir::Stmt divergent_in(const ir::Stmt& block) const;

  const ir::Kernel& k_;
  mutable std::unordered_map<const ir::StmtNode*, bool> collective_;
  Uniformity u_;
};

}  // namespace tack::analysis
