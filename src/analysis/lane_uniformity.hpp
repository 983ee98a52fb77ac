// Which values of a parallel kernel differ between the work-items a CPU gang
// runs together (varying) and which are the same for all of them (uniform),
// and where the gang's lanes can part ways. The CPU code generator keeps
// uniform values in scalar registers and varying ones in vectors, and runs
// divergent control flow under an execution mask (docs/cpu-codegen.md).
//
// Varying: the innermost parallel index, loads at varying indices, atomics'
// results, and whatever is computed from those; a Var also when it is assigned
// where only some of the lanes that declared it are running (inside an if_ on a
// varying condition, or a loop whose lanes leave at different iterations).
// Everything else (parameters, shapes, outer parallel indices, loads at uniform
// indices, loop indices with uniform bounds) is uniform. A load at a uniform
// index is uniform: every lane reads the same element, and a lane writing it
// meanwhile would be a race the language forbids.
//
// Workgroup kernels, as passes::lower_workgroups leaves them: the lanes run the
// work-items of one loop over a group's work-items (Kernel::work_item_loops), so
// that loop's index is what varies and the group id (LoopIndex 0) is uniform. A
// gang is kMaxGang or fewer lanes whose first local id is a multiple of its
// width, so `lid / D` with D a multiple of kMaxGang is the same for every lane of
// a gang and `lid % D` steps by one from lane to lane (16 x 16 tiles).
#pragma once

#include "ir/ir.hpp"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::analysis {

class LaneUniformity {
 public:
  // The widest gang on any host (512-bit vectors of 32-bit values); every gang
  // width divides it and the group size.
  static constexpr unsigned kMaxGang = 16;

  // Analyses a typed Parallel kernel whose innermost dimension is spread over
  // lanes, or a lowered Workgroup kernel whose work-item loops are.
  explicit LaneUniformity(const ir::Kernel& k);

  bool varying(const ir::Expr& e) const;
  // Workgroup kernels: whether Let `id` is the index of a loop over a group's work-items.
  bool work_item_index(int id) const { return items_.count(id) != 0; }
  // Workgroup kernels: `lid / D` (a Div, FloorDiv or Shr of a work-item index by
  // a multiple of kMaxGang), the same for every lane of a gang although its
  // operand varies; and `lid % D` (Mod, FloorMod or BitAnd with D - 1), which
  // steps by one element from lane to lane.
  bool gang_block(const ir::Expr& e) const;
  bool gang_offset(const ir::Expr& e) const;
  bool let_varying(int id) const { return let_varying_[static_cast<std::size_t>(id)] != 0; }
  bool var_varying(int id) const { return var_varying_[static_cast<std::size_t>(id)] != 0; }
  // An if_ whose condition is varying: both sides run, each under its lanes' mask.
  bool varying_if(const ir::StmtNode* s) const { return varying_ifs_.count(s) != 0; }
  // A for_range or loop whose lanes may leave at different iterations (varying
  // bounds, or a break_ or continue_ under a varying if_): it runs while any lane is active.
  bool divergent_loop(const ir::StmtNode* s) const { return divergent_loops_.count(s) != 0; }
  // Whether s holds a break_ or continue_ that leaves s (not one of a loop inside s).
  static bool escapes(const ir::Stmt& s);
  // Whether an Assign to a varying Var must keep the Var's value in the lanes not
  // running it. Not when every lane that has the Var runs it (no divergent region
  // lies between the declaration and the Assign), nor when the only one is a
  // loop without continue_ that holds every read of the Var and that nothing
  // re-enters: a lane not running there has left the loop and never reads it again.
  bool assign_masked(const ir::StmtNode* assign) const { return masked_assigns_.count(assign) != 0; }

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
  bool scan(const ir::Stmt& s, int depth);
  bool mark_let(int id);
  bool mark_var(int id);
  bool breaks_under_varying_if(const ir::Stmt& s, bool under) const;

  int inner_;                      // the parallel dimension spread over lanes (-1 for workgroup kernels)
  std::unordered_set<int> items_;  // workgroup kernels: the work-item loops' index Lets
  std::vector<char> let_varying_, var_varying_;
  std::vector<int> var_depth_;  // how many divergent regions enclose each Var's declaration
  std::unordered_set<const ir::StmtNode*> varying_ifs_, divergent_loops_;
  // For classify_assigns: reads of each Var in all and inside each divergent loop's body, and the loops around
  // each Var's declaration.
  std::vector<int> reads_;
  std::unordered_map<const ir::StmtNode*, std::vector<int>> reads_in_loop_;
  std::vector<int> var_loops_;
  std::unordered_set<const ir::StmtNode*> masked_assigns_;
};

}  // namespace tack::analysis
