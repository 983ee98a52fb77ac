// The uniformity analysis of typed Tack IR: which values are the same for every
// work-item that runs together (uniform) and which differ between them
// (varying). It has two uses, each a Policy of this one engine:
//
// - GroupUniformity (group_uniformity.hpp): the work-items of one workgroup, on
//   the un-lowered kernel. local_id() varies. The barrier rule every backend
//   enforces and the CPU's lowering of groups to loops read it.
// - LaneUniformity (lane_uniformity.hpp): the lanes of a CPU SIMD gang, on a
//   parallel kernel (the innermost parallel index varies) or a lowered workgroup
//   kernel (the work-item loops' indices vary). The CPU code generator keeps
//   uniform values scalar and runs divergent control flow under a mask.
//
// Both ask the same question, so one least fixpoint (uniformity.cpp) answers it
// with the same rules: a value is varying when it is computed from a seed (what
// the policy says varies: an index, local_id()), an atomic's result, a load at a
// varying index, or a Var assigned where only some of the work-items that declared
// it run; everything else (parameters, shapes, constants, loop indices with
// uniform bounds, loads at uniform indices) is uniform. A load at a uniform index
// is uniform: every work-item reads the same element, and one writing it meanwhile
// would be a race the language forbids (docs/language.md §12). Besides the seeds,
// the policies differ only in how an if_, for_range or loop treats what it holds
// (region()): the lanes run a divergent one under a mask, so what it computes
// varies only when its operands do; lower_workgroups runs one per work-item, so
// everything it defines varies.
#pragma once

#include "ir/ir.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tack::analysis {

class Uniformity {
 public:
  // How a control-flow statement treats the statements it holds.
  enum class Region : std::uint8_t {
    Same,    // they run for the same work-items as the statement itself
    Masked,  // only some of those run them (a Var assigned there varies)
    Opaque,  // each work-item runs them on its own: whatever they define varies
  };

  class Policy {
   public:
    virtual ~Policy() = default;
    // Whether a leaf expression (a LoopIndex or GroupValue) varies by itself.
    virtual bool seed(const ir::Expr& leaf) const = 0;
    // Whether e is uniform whatever its operands are (`lid / 16` within a gang).
    virtual bool cut(const ir::Expr&) const { return false; }
    // Whether a for_range's index varies whatever its bounds are.
    virtual bool seed_index(int) const { return false; }
    // How an if_, for_range or loop reached outside any Opaque region treats its
    // body, under the answer so far (u grows monotonically until it settles).
    virtual Region region(const ir::Stmt& s, const Uniformity& u) const = 0;
  };

  explicit Uniformity(const ir::Kernel& k) : k_(k) {}
  // Runs the fixpoint; policy must outlive the queries.
  void solve(const Policy& policy);

  bool varies(const ir::Expr& e) const;
  bool let_varies(int id) const { return let_varies_[static_cast<std::size_t>(id)] != 0; }
  bool var_varies(int id) const { return var_varies_[static_cast<std::size_t>(id)] != 0; }
  // The region s got; Opaque for one inside an Opaque region (or not in the kernel).
  Region region(const ir::StmtNode* s) const;
  // How many Masked regions enclose Var `id`'s declaration.
  int var_depth(int id) const { return var_depth_[static_cast<std::size_t>(id)]; }

  // The first break_ or continue_ in s that leaves s (not one of a loop inside s):
  // it makes the statements after s run for fewer work-items than s.
  static const ir::StmtNode* escape(const ir::Stmt& s);

 private:
  bool scan(const ir::Stmt& s, int depth, bool opaque);
  static bool mark(std::vector<char>& flags, int id);

  const ir::Kernel& k_;
  const Policy* policy_ = nullptr;
  std::vector<char> let_varies_, var_varies_;
  std::vector<int> var_depth_;
  std::unordered_map<const ir::StmtNode*, Region> regions_;  // of the last scan
};

}  // namespace tack::analysis
