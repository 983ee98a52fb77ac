// The interpreter's driver: splits a launch into batches of lanes (Parallel) or groups (Workgroup) and runs each.
#include "interp/interpreter.hpp"

#include "interp/context.hpp"
#include "interp/exec_stmt.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <vector>

namespace tack::interp {
namespace {

static_assert(kGroupSize == kMaxLanes, "a work-group is one batch of lanes");

void run_parallel(Context& ctx, std::int64_t begin, std::int64_t end, int lanes) {
  const ir::Kernel& k = ctx.kernel;
  std::size_t dims = k.dims.size();
  std::vector<std::int64_t> extent(dims), stride(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    extent[d] = static_cast<std::int64_t>(eval_host(k.dims[d], ctx.args));
    if (extent[d] <= 0) return;  // an empty range
  }
  // Row-major: the last dimension is the innermost.
  for (std::size_t d = dims; d-- > 0;) {
    if (d + 1 == dims) {
      stride[d] = 1;
    } else if (__builtin_mul_overflow(stride[d + 1], extent[d + 1], &stride[d])) {
      throw InvalidArgument("kernel '" + k.name + "': the launch range has more than 2^63 iterations");
    }
  }
  ctx.loop_index.resize(dims);
  for (std::int64_t base = begin; base < end;) {
    int n = static_cast<int>(std::min<std::int64_t>(lanes, end - base));
    for (std::size_t d = 0; d < dims; ++d) {
      auto& idx = ctx.loop_index[d];
      for (int l = 0; l < n; ++l) {
        std::int64_t q = (base + l) / stride[d];
        idx[static_cast<std::size_t>(l)] = d == 0 ? q : q % extent[d];
      }
    }
    Mask mask = Mask::first(n);
    exec_stmt(ctx, k.body, mask);
    base += n;
  }
}

void run_groups(Context& ctx, std::int64_t begin, std::int64_t end) {
  const ir::Kernel& k = ctx.kernel;
  TACK_CHECK(!k.dims.empty());
  ctx.workgroup = true;
  ctx.num_groups = static_cast<std::int64_t>(eval_host(k.dims[0], ctx.args));
  ctx.group_mask = Mask::first(static_cast<int>(kGroupSize));
  for (std::size_t s = 0; s < k.shared.size(); ++s) {
    TACK_CHECK(k.shared[s].count >= 0);
    std::size_t bytes = static_cast<std::size_t>(k.shared[s].count) * dtype_size(k.shared[s].dtype);
    ctx.shared[s].resize((bytes + 7) / 8);
  }
  for (std::int64_t g = begin; g < end; ++g) {
    ctx.group_id = g;
    for (auto& words : ctx.shared) std::fill(words.begin(), words.end(), 0);
    Mask mask = ctx.group_mask;
    exec_stmt(ctx, k.body, mask);
  }
}

}  // namespace

void run(const ir::Kernel& kernel, std::span<const Arg> args, std::int64_t begin, std::int64_t end, int lanes) {
  TACK_CHECK(lanes >= 1 && lanes <= kMaxLanes);
  TACK_CHECK(kernel.typed && kernel.body);
  if (begin >= end) return;
  Context ctx(kernel, args);
  if (kernel.launch == ir::LaunchKind::Workgroup) {
    run_groups(ctx, begin, end);
  } else {
    run_parallel(ctx, begin, end, lanes);
  }
}

}  // namespace tack::interp
