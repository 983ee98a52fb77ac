// The barrier rule is one contract on every backend: a barrier, group reduction, or
// break_ of a loop holding one, inside control flow whose condition or bounds depend
// on the work-item is refused at the call, before any code is generated, with one
// message naming the kernel and both lines. On a GPU the alternative is a hang.
// Loads at uniform indices are uniform, so a loop bound read from a shared value or
// an array element every work-item reads alike is accepted everywhere.
//
// Each test runs once per backend of the build: what tack::inspect generates or
// refuses is checked for every backend, the launch where the backend has a device
// (elsewhere the test ends SKIPPED with the reason).
#include "errors/error_helpers.hpp"
#include "support/per_backend.hpp"

#include <tack/tack.hpp>

#include <functional>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

constexpr std::int64_t kGroup = 256;
const std::string kFile = "workgroup_barriers.cpp:";

TACK_PER_BACKEND_SUITE(WorkgroupBarriers);

// Whether `msg` names `what` at this file's `line` ("barrier at ../tests/errors/workgroup_barriers.cpp:63").
bool names_at(const std::string& msg, const std::string& what, int line) {
  const std::string place = kFile + std::to_string(line);
  for (std::size_t at = msg.find(what + " at "); at != std::string::npos; at = msg.find(what + " at ", at + 1)) {
    const std::size_t end = msg.find_first_of(",)", at);
    if (msg.substr(at, end - at).ends_with("/" + place) || msg.substr(at, end - at).ends_with(" " + place))
      return true;
  }
  return false;
}

std::string refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const tack::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

// The message of a refused launch on the backend's device, after checking that
// nothing ran: `out` (zeros) stays zeros.
// `arrays` is how many I32 arrays of `items` elements the kernel takes.
std::string launch_refusal(tack::Device& dev, const tack::Kernel& k, std::int64_t items, int arrays = 1) {
  tack::Array out = dev.zeros(tack::DType::I32, {items});
  tack::Array other = dev.zeros(tack::DType::I32, {items});
  std::string msg = refusal([&] {
    if (arrays == 1)
      k(out);
    else
      k(out, other);
  });
  EXPECT_EQ(out.sum<std::int32_t>(), 0) << "refused before launching";
  return msg;
}

// A device that runs workgroup kernels, or a skip naming why not.
#define NEED_WORKGROUP_DEVICE()                                                                         \
  TACK_NEED_DEVICE();                                                                                   \
  if (!dev().capabilities().supports_workgroups) GTEST_SKIP() << backend() << " runs no workgroup kernels"

TEST_P(WorkgroupBarriers, BarrierInDivergentIfIsRefusedAtTheCallOnEveryBackend) {
  const int if_line = __LINE__ + 3;
  auto k = tack::kernel("divergent_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      if_(g.local_id() < 128, [&] { g.barrier(); });
      out[g.global_id()] = 1;
    });
  });
  const std::string inspected = refusal([&] { tack::inspect(k, backend(), tack::ArraySpec{tack::DType::I32, 1}); });
  EXPECT_NE(inspected.find("kernel 'divergent_barrier': a barrier inside control flow that depends on the work-item"),
            std::string::npos)
      << inspected;
  EXPECT_TRUE(names_at(inspected, "barrier", if_line)) << inspected;
  EXPECT_TRUE(names_at(inspected, "if_", if_line)) << inspected;
  // One message on every backend: interp's, the reference.
  if (backend() != "interp")
    EXPECT_EQ(inspected, refusal([&] { tack::inspect(k, "interp", tack::ArraySpec{tack::DType::I32, 1}); }));
  NEED_WORKGROUP_DEVICE();
  EXPECT_EQ(launch_refusal(dev(), k, 2 * kGroup), inspected) << "the call refuses as inspect does";
}

TEST_P(WorkgroupBarriers, ReductionInLoopWithPerItemBoundsIsRefusedEverywhere) {
  const int for_line = __LINE__ + 3;
  auto k = tack::kernel("divergent_reduce", [](Array out) {
    workgroup_for(
        1, [&](Group g) { for_range(0, g.local_id() % 3, [&](Index) { out[g.local_id()] = g.reduce_add(1); }); });
  });
  const std::string inspected = refusal([&] { tack::inspect(k, backend(), tack::ArraySpec{tack::DType::I32, 1}); });
  EXPECT_NE(inspected.find("kernel 'divergent_reduce': a group reduce_add inside control flow that depends on the "
                           "work-item"),
            std::string::npos)
      << inspected;
  EXPECT_TRUE(names_at(inspected, "reduce_add", for_line)) << inspected;
  EXPECT_TRUE(names_at(inspected, "for_range", for_line)) << inspected;
  NEED_WORKGROUP_DEVICE();
  EXPECT_EQ(launch_refusal(dev(), k, kGroup), inspected);
}

TEST_P(WorkgroupBarriers, BreakOnPerItemLoadInLoopWithBarrierIsRefusedEverywhere) {
  const int if_line = __LINE__ + 5;
  auto k = tack::kernel("divergent_break", [](Array out) {
    workgroup_for(1, [&](Group g) {
      for_range(0, 4, [&](Index) {
        g.barrier();
        if_(out[g.local_id()] > 0, [&] { break_(); });
      });
    });
  });
  const std::string inspected = refusal([&] { tack::inspect(k, backend(), tack::ArraySpec{tack::DType::I32, 1}); });
  EXPECT_NE(inspected.find("kernel 'divergent_break': a break_ inside control flow that depends on the work-item, "
                           "in a loop that contains a barrier"),
            std::string::npos)
      << inspected;
  EXPECT_TRUE(names_at(inspected, "break_", if_line)) << inspected;
  EXPECT_TRUE(names_at(inspected, "if_", if_line)) << inspected;
  NEED_WORKGROUP_DEVICE();
  EXPECT_EQ(launch_refusal(dev(), k, kGroup), inspected);
}

TEST_P(WorkgroupBarriers, LoopBoundLoadedAtPerItemIndexIsRefused) {
  const int for_line = __LINE__ + 3;
  auto k = tack::kernel("per_item_load_bound", [](Array out, Array rounds) {
    workgroup_for(1, [&](Group g) {
      for_range(0, rounds[g.local_id()], [&](Index) { g.barrier(); });
      out[g.local_id()] = 1;
    });
  });
  const std::string inspected = refusal([&] {
    tack::inspect(k, backend(), tack::ArraySpec{tack::DType::I32, 1}, tack::ArraySpec{tack::DType::I32, 1});
  });
  EXPECT_NE(inspected.find("kernel 'per_item_load_bound': a barrier inside control flow that depends on the work-item"),
            std::string::npos)
      << inspected;
  EXPECT_TRUE(names_at(inspected, "barrier", for_line)) << inspected;
  EXPECT_TRUE(names_at(inspected, "for_range", for_line)) << inspected;
  NEED_WORKGROUP_DEVICE();
  EXPECT_EQ(launch_refusal(dev(), k, kGroup, 2), inspected);
}

TEST_P(WorkgroupBarriers, BarrierInUniformControlFlowRuns) {
  auto k = tack::kernel("uniform_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      if_(g.group_id() < 1, [&] { g.barrier(); });
      out[g.global_id()] = 1;
    });
  });
  EXPECT_NO_THROW(tack::inspect(k, backend(), tack::ArraySpec{tack::DType::I32, 1}));
  NEED_WORKGROUP_DEVICE();
  auto out = dev().zeros(tack::DType::I32, {512});
  k(out);
  EXPECT_EQ(out.to_host<std::int32_t>(), std::vector<std::int32_t>(512, 1));
}

// Loop bounds read from memory every work-item reads alike: a shared value written by
// one work-item before a barrier, and an element of an argument at a uniform index.
// Each round sums the group's values into shared memory between barriers.
tack::Kernel uniform_load_bounds() {
  return tack::kernel("uniform_load_bounds", [](Array out, Array rounds) {
    workgroup_for(out.size() / 256, [&](Group g) {
      auto count = g.shared<std::int32_t>(1);
      auto acc = g.shared<std::int32_t>(256);
      if_(g.local_id() == 0, [&] { count[0] = rounds[g.group_id()] + 1; });
      g.barrier();
      for_range(0, count[0], [&](Index r) {
        acc[g.local_id()] = acc[g.local_id()] + (g.local_id() + r).cast<std::int32_t>();
        g.barrier();
      });
      for_range(0, rounds[0], [&](Index) { g.barrier(); });
      out[g.global_id()] = acc[(g.local_id() + 1) % 256];
    });
  });
}

TEST_P(WorkgroupBarriers, LoopBoundFromUniformSharedValueOrArrayElementRunsEverywhere) {
  tack::Kernel k = uniform_load_bounds();
  EXPECT_NO_THROW(
      tack::inspect(k, backend(), tack::ArraySpec{tack::DType::I32, 1}, tack::ArraySpec{tack::DType::I32, 1}));
  NEED_WORKGROUP_DEVICE();
  const std::vector<std::int32_t> rounds = {3, 5};
  // Work-item l of group g reads acc[(l + 1) % 256], the sum over r in [0, rounds[g]] of (l + 1) % 256 + r
  // (shared memory starts zeroed).
  std::vector<std::int32_t> expected(2 * kGroup);
  for (std::int64_t g = 0; g < 2; ++g)
    for (std::int64_t l = 0; l < kGroup; ++l) {
      const std::int32_t slot = static_cast<std::int32_t>((l + 1) % kGroup);
      std::int32_t sum = 0;
      for (std::int32_t r = 0; r <= rounds[g]; ++r) sum += slot + r;
      expected[g * kGroup + l] = sum;
    }
  ASSERT_EQ(expected[kGroup], 1 + 2 + 3 + 4 + 5 + 6);
  auto run = [&] {
    tack::Array out = dev().zeros(tack::DType::I32, {2 * kGroup});
    tack::Array r = dev().from_host(rounds);
    k(out, r);
    return out.to_host<std::int32_t>();
  };
  EXPECT_EQ(run(), expected);
  tack::set_debug(true);  // the checked loads of debug mode stay uniform
  EXPECT_EQ(run(), expected) << "in debug mode";
  tack::set_debug(false);
}

TEST_P(WorkgroupBarriers, VarSetUnderUniformIfBoundsALoopWithABarrier) {
  auto k = tack::kernel("uniform_var_bound", [](Array out, Scalar n) {
    workgroup_for(out.size() / 256, [&](Group g) {
      Var trips = 1;
      if_(g.group_id() > 0, [&] { trips = n; });
      auto s = g.shared<std::int32_t>(256);
      for_range(0, trips, [&](Index) {
        s[g.local_id()] = s[g.local_id()] + 1;
        g.barrier();
      });
      out[g.global_id()] = s[255 - g.local_id()];
    });
  });
  NEED_WORKGROUP_DEVICE();
  tack::Array out = dev().zeros(tack::DType::I32, {3 * kGroup});
  k(out, 4);
  std::vector<std::int32_t> want(3 * kGroup, 4);
  std::fill(want.begin(), want.begin() + kGroup, 1);  // group 0 keeps one trip
  EXPECT_EQ(out.to_host<std::int32_t>(), want);
}

}  // namespace
