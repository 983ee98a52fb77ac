// A barrier the work-items of a group may reach differently: the cpu backend runs
// a group's work-items as loops split at barriers, so it refuses such a kernel at
// the call, naming the kernel and the barrier's line (the interpreter, running in
// lock step, raises only when a launch actually diverges).
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

TEST(WorkgroupBarriers, BarrierInDivergentControlFlowIsRefusedOnTheCpu) {
  const int line = __LINE__ + 3;
  auto k = tack::kernel("divergent_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      if_(g.local_id() < 128, [&] { g.barrier(); });
      out[g.global_id()] = 1;
    });
  });
  auto out = tack::device("cpu").zeros(tack::DType::I32, {512});
  EXPECT_TACK_ERROR(k(out), tack::InvalidArgument, "kernel 'divergent_barrier'",
                    "a barrier inside control flow that depends on the work-item",
                    "workgroup_barriers.cpp:" + std::to_string(line));
}

TEST(WorkgroupBarriers, BarrierInUniformControlFlowRuns) {
  auto k = tack::kernel("uniform_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      if_(g.group_id() < 1, [&] { g.barrier(); });
      out[g.global_id()] = 1;
    });
  });
  auto out = tack::device("cpu").zeros(tack::DType::I32, {512});
  k(out);
  EXPECT_EQ(out.sum<std::int32_t>(), 512);
}

}  // namespace
