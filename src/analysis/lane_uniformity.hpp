// Which values of a parallel kernel differ between the work-items a CPU gang
// runs together (varying) and which are the same for all of them (uniform),
// and where the gang's lanes can part ways. The uniformity analysis
// (uniformity.hpp) with the gang's index as the seed; the CPU code generator
// keeps uniform values in scalar registers and varying ones in vectors, and runs
// divergent control flow under an execution mask (docs/cpu-codegen.md).
//
// The seed is the innermost parallel index. An if_ on a varying condition and a
// loop whose lanes leave at different iterations are Masked regions: a Var
// assigned there varies, since the lanes not running keep their value; what
// else they compute varies only when its operands do.
//
// Workgroup kernels, as passes::lower_workgroups leaves them: the lanes run the
// work-items of one loop over a group's work-items (Kernel::work_item_loops), so
// that loop's index is what varies and the group id (LoopIndex 0) is uniform. A
// gang is kMaxGang or fewer lanes whose first local id is a multiple of its
// width, so `lid / D` with D a multiple of kMaxGang is the same for every lane of
// a gang and `lid % D` steps by one from lane to lane (16 x 16 tiles).
#pragma once

#include "analysis/uniformity.hpp"
#include "ir/ir.hpp"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::analysis {

class LaneUniformity : private Uniformity::Policy {
 public:
  // The widest gang on any host (512-bit vectors of 32-bit values); every gang
  // width divides it and the group size.
  static constexpr unsigned kMaxGang = 16;

  // Analyses a typed Parallel kernel whose innermost dimension is spread over
  // lanes, or a lowered Workgroup kernel whose work-item loops are.
  explicit LaneUniformity(const ir::Kernel& k);

  bool varying(const ir::Expr& e) const { return u_.varies(e); }
  // Workgroup kernels: whether Let `id` is the index of a loop over a group's work-items.
  bool work_item_index(int id) const { return items_.count(id) != 0; }
  // Workgroup kernels: `lid / D` (a Div, FloorDiv or Shr of a work-item index by
  // a multiple of kMaxGang), the same for every lane of a gang although its
  // operand varies; and `lid % D` (Mod, FloorMod or BitAnd with D - 1), which
  // steps by one element from lane to lane.
  bool gang_block(const ir::Expr& e) const;
  bool gang_offset(const ir::Expr& e) const;
  bool let_varying(int id) const { return u_.let_varies(id); }
  bool var_varying(int id) const { return u_.var_varies(id); }
  // An if_ whose condition is varying: both sides run, each under its lanes' mask.
  bool varying_if(const ir::StmtNode* s) const { return s->kind == ir::StmtKind::If && masked(s); }
  // A for_range or loop whose lanes may leave at different iterations (varying
  // bounds, or a break_ or continue_ under a varying if_): it runs while any lane is active.
  bool divergent_loop(const ir::StmtNode* s) const { return s->kind != ir::StmtKind::If && masked(s); }
  // Whether s holds a break_ or continue_ that leaves s (not one of a loop inside s).
  static bool escapes(const ir::Stmt& s) { return Uniformity::escape(s) != nullptr; }
  // Whether an Assign to a varying Var must keep the Var's value in the lanes not
  // running it. Not when every lane that has the Var runs it (no divergent region
  // lies between the declaration and the Assign), nor when the only one is a
  // loop without continue_ that holds every read of the Var and that nothing
  // re-enters: a lane not running there has left the loop and never reads it again.
  bool assign_masked(const ir::StmtNode* assign) const { return masked_assigns_.count(assign) != 0; }
  // How the I64 `index` changes from one lane to the next: 0 for a uniform index, 1 for the innermost parallel
  // index plus a uniform offset (a[i], a(i, j + 1), Lets bound to those) or a work-item loop's index, none when
  // unknown. Integer wrap-around cannot break a stride of one: the scalar path computes the same wrapped
  // addresses. A contiguous access is one vector load or store; any other varying one a gather or scatter.
  std::optional<std::int64_t> lane_stride(const ir::Expr& index) const;
  // Every Let of the kernel: its id and the value it binds.
  const std::unordered_map<int, ir::Expr>& let_values() const { return let_values_; }

 private:
  struct Context {
    int depth = 0;                              // divergent regions around
    int loops = 0;                              // loops of any kind around
    const ir::StmtNode* direct_loop = nullptr;  // the divergent loop whose body this is, with no varying if_ between
    int loops_outside_direct = 0;               // loops around direct_loop
  };
  void count_reads(const ir::Stmt& s, std::vector<const ir::StmtNode*>& loops);
  void classify_assigns(const ir::Stmt& s, Context c);
  static bool has_continue(const ir::Stmt& s);
  bool seed(const ir::Expr& leaf) const override;
  bool cut(const ir::Expr& e) const override { return !items_.empty() && gang_block(e); }
  bool seed_index(int id) const override { return work_item_index(id); }
  Uniformity::Region region(const ir::Stmt& s, const Uniformity& u) const override;
  static bool breaks_under_varying_if(const ir::Stmt& s, bool under, const Uniformity& u);
  bool masked(const ir::StmtNode* s) const { return u_.region(s) == Uniformity::Region::Masked; }

  int inner_;                      // the parallel dimension spread over lanes (-1 for workgroup kernels)
  std::unordered_set<int> items_;  // workgroup kernels: the work-item loops' index Lets
  Uniformity u_;
  // For classify_assigns: reads of each Var in all and inside each divergent loop's body, and the loops around
  // each Var's declaration.
  std::vector<int> reads_;
  std::unordered_map<const ir::StmtNode*, std::vector<int>> reads_in_loop_;
  std::vector<int> var_loops_;
  std::unordered_set<const ir::StmtNode*> masked_assigns_;
  // For lane_stride: each Let's value, and the strides found so far by node.
  std::unordered_map<int, ir::Expr> let_values_;
  mutable std::unordered_map<const ir::ExprNode*, std::optional<std::int64_t>> strides_;
};

}  // namespace tack::analysis
