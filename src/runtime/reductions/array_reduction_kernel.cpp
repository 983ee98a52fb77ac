// The f32 array reductions as Tack kernels: one definition for every backend.
#include "runtime/reductions/array_reduction_kernel.hpp"

#include "ir/check.hpp"

#include <tack/lang.hpp>

#include <bit>

namespace tack::runtime {
namespace {
using namespace tack::lang;

const char* name_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "tack_reduce_sum_f32";
    case ReduceOp::Min: return "tack_reduce_min_f32";
    case ReduceOp::Max: return "tack_reduce_max_f32";
  }
  TACK_UNREACHABLE("unknown reduction");
}

// The mode is fixed rather than left to TACK_FP_CONTRACT: there is no product to fuse, and Array::sum should not
// raise the variable's errors.
const KernelOptions kOptions{.fp_contract = true};

Kernel make(ReduceOp op) {
  return tack::kernel(name_of(op), kOptions, [op](ArrayOf<float> x, ArrayOf<float> out, ScalarOf<std::int64_t> groups) {
    workgroup_for(groups, [&](Group g) {
      Var acc = std::bit_cast<float>(reduction_identity_bits(op));
      Var i = g.global_id();
      const Value stride = g.num_groups() * g.size();
      auto combine = [&](const Value& a, const Value& b) {
        return op == ReduceOp::Sum ? a + b : op == ReduceOp::Min ? min(a, b) : max(a, b);
      };
      while_([&] { return i < x.size(); },
             [&] {
               acc = combine(acc, x[i]);
               i = i + stride;
             });
      // The group's tree (codegen: a tree in shared scratch), then one atomic per group into out[0].
      const Value total = op == ReduceOp::Sum   ? g.reduce_add(acc)
                          : op == ReduceOp::Min ? g.reduce_min(acc)
                                                : g.reduce_max(acc);
      if_(g.local_id() == 0, [&] {
        if (op == ReduceOp::Sum)
          atomic_add(out, 0, total);
        else if (op == ReduceOp::Min)
          atomic_min(out, 0, total);
        else
          atomic_max(out, 0, total);
      });
    });
  });
}

}  // namespace

const Kernel& array_reduction_kernel(ReduceOp op) {
  static const Kernel kernels[] = {make(ReduceOp::Sum), make(ReduceOp::Min), make(ReduceOp::Max)};
  return kernels[static_cast<std::size_t>(op)];
}

std::uint32_t reduction_identity_bits(ReduceOp op) { return op == ReduceOp::Sum ? 0u : 0x7fc00000u; }

}  // namespace tack::runtime
