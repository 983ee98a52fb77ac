// check_barriers: refuses divergent barriers with the shared uniformity analysis.
#include "passes/check_barriers.hpp"

#include "analysis/group_uniformity.hpp"

namespace tack::passes {

void check_barriers(const ir::Kernel& typed) {
  if (typed.launch != ir::LaunchKind::Workgroup) return;
  analysis::GroupUniformity analysis(typed);
  if (ir::Stmt flow = analysis.first_divergent()) analysis.refuse(flow);
}

}  // namespace tack::passes
