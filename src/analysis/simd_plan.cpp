// The CPU's choice of path and gang width (see simd_plan.hpp).
//
// The width fills one vector register with the kernel's widest varying value:
// 16 lanes of f32 or i32 in 512 bits, 8 of f64. 64-bit integers do not count,
// since every index is one and most fold into scalar addresses; narrower
// values count as 32 bits, since they compute in 32-bit lanes anyway.
#include "analysis/simd_plan.hpp"

#include "analysis/lane_uniformity.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <algorithm>

namespace tack::analysis {
namespace {

bool samples_texture(const ir::Kernel& k) {
  bool found = false;
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) {
    std::unordered_set<const ir::ExprNode*> seen;
    for (const ir::Expr& e : ir::own_exprs(s))
      ir::walk(e, seen, [&](const ir::Expr& x) { found = found || x->kind == ir::ExprKind::TexSample; });
  });
  return found;
}

int counted_bits(DType t) {
  if (t == DType::I64 || t == DType::U64 || t == DType::Bool) return 0;
  return std::max(32, dtype_bits(t));
}

}  // namespace

SimdPlan plan_simd(const ir::Kernel& k, unsigned vector_bits, bool enabled) {
  SimdPlan plan;
  if (!enabled) {
    plan.why = "scalar path: TACK_CPU_SIMD=0";
    return plan;
  }
  if (k.launch != ir::LaunchKind::Parallel) {
    plan.why = "scalar path: a workgroup kernel's work-item loops are vectorized by LLVM";
    return plan;
  }
  if (samples_texture(k)) {
    plan.why = "scalar path: the kernel samples a texture, which the SIMD path does not do yet";
    return plan;
  }
  LaneUniformity lanes(k);
  int widest = 32;
  for (std::size_t i = 0; i < k.lets.size(); ++i)
    if (lanes.let_varying(static_cast<int>(i))) widest = std::max(widest, counted_bits(k.lets[i].dtype));
  for (std::size_t i = 0; i < k.vars.size(); ++i)
    if (lanes.var_varying(static_cast<int>(i))) widest = std::max(widest, counted_bits(k.vars[i].dtype));
  plan.lanes = std::max(2u, vector_bits / static_cast<unsigned>(widest));
  plan.why = "SIMD path: gangs of " + std::to_string(plan.lanes) + " work-items, " + std::to_string(widest) +
             "-bit values in " + std::to_string(vector_bits) + "-bit vectors";
  return plan;
}

}  // namespace tack::analysis
