// The barrier rule is one contract on every backend: a barrier, group reduction, or
// break_ of a loop holding one, inside control flow whose condition or bounds depend
// on the work-item is refused at the call, before any code is generated, with one
// message naming the kernel and both lines. On a GPU the alternative is a hang.
// Loads at uniform indices are uniform, so a loop bound read from a shared value or
// an array element every work-item reads alike is accepted everywhere.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <iostream>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

constexpr std::int64_t kGroup = 256;
const std::vector<std::string> kAllBackends = {"interp", "cpu", "cuda", "hip", "level_zero", "metal", "opencl"};

// The devices that can run here (interp and cpu always; opencl where PoCL is).
std::vector<tack::Device> running_devices() {
  std::vector<tack::Device> out;
  for (const std::string& name : tack::backend_names()) {
    try {
      tack::Device d = tack::device(name);
      if (d.capabilities().supports_workgroups) out.push_back(d);
    } catch (const tack::BackendUnavailable& e) {
      std::cout << "[ NOTE     ] " << name << " cannot run here: " << e.what() << "\n";
    }
  }
  return out;
}

std::string refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const tack::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(WorkgroupBarriers, BarrierInDivergentIfIsRefusedAtTheCallOnEveryBackend) {
  const int if_line = __LINE__ + 3;
  auto k = tack::kernel("divergent_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      if_(g.local_id() < 128, [&] { g.barrier(); });
      out[g.global_id()] = 1;
    });
  });
  const std::string file = "workgroup_barriers.cpp:";
  std::string first;
  for (tack::Device& dev : running_devices()) {
    SCOPED_TRACE(dev.name());
    tack::Array out = dev.zeros(tack::DType::I32, {512});
    std::string msg = refusal([&] { k(out); });
    EXPECT_NE(msg.find("kernel 'divergent_barrier': a barrier inside control flow that depends on the work-item"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("barrier at "), std::string::npos) << msg;
    EXPECT_NE(msg.find("if_ at "), std::string::npos) << msg;
    EXPECT_NE(msg.find(file + std::to_string(if_line)), std::string::npos) << msg;
    EXPECT_EQ(out.sum<std::int32_t>(), 0) << "refused before launching";
    if (first.empty()) first = msg;
    EXPECT_EQ(msg, first) << "every backend refuses with the same message";
  }
  // The GPU backends that cannot run here refuse it the same way when only generating code.
  for (const std::string& name : kAllBackends) {
    SCOPED_TRACE(name);
    std::string msg = refusal([&] { tack::inspect(k, name, tack::ArraySpec{tack::DType::I32, 1}); });
    EXPECT_EQ(msg, first);
  }
}

TEST(WorkgroupBarriers, ReductionInLoopWithPerItemBoundsIsRefusedEverywhere) {
  const int for_line = __LINE__ + 3;
  auto k = tack::kernel("divergent_reduce", [](Array out) {
    workgroup_for(
        1, [&](Group g) { for_range(0, g.local_id() % 3, [&](Index) { out[g.local_id()] = g.reduce_add(1); }); });
  });
  for (const std::string& name : kAllBackends) {
    SCOPED_TRACE(name);
    std::string msg = refusal([&] { tack::inspect(k, name, tack::ArraySpec{tack::DType::I32, 1}); });
    EXPECT_NE(msg.find("a group reduce_add inside control flow that depends on the work-item"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("for_range at "), std::string::npos) << msg;
    EXPECT_NE(msg.find("workgroup_barriers.cpp:" + std::to_string(for_line)), std::string::npos) << msg;
  }
}

TEST(WorkgroupBarriers, BreakOnPerItemLoadInLoopWithBarrierIsRefusedEverywhere) {
  auto k = tack::kernel("divergent_break", [](Array out) {
    workgroup_for(1, [&](Group g) {
      for_range(0, 4, [&](Index) {
        g.barrier();
        if_(out[g.local_id()] > 0, [&] { break_(); });
      });
    });
  });
  for (const std::string& name : kAllBackends) {
    SCOPED_TRACE(name);
    std::string msg = refusal([&] { tack::inspect(k, name, tack::ArraySpec{tack::DType::I32, 1}); });
    EXPECT_NE(msg.find("a break_ inside control flow that depends on the work-item, in a loop that contains a barrier"),
              std::string::npos)
        << msg;
  }
}

TEST(WorkgroupBarriers, BarrierInUniformControlFlowRuns) {
  auto k = tack::kernel("uniform_barrier", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      if_(g.group_id() < 1, [&] { g.barrier(); });
      out[g.global_id()] = 1;
    });
  });
  for (tack::Device& dev : running_devices()) {
    SCOPED_TRACE(dev.name());
    auto out = dev.zeros(tack::DType::I32, {512});
    k(out);
    EXPECT_EQ(out.sum<std::int32_t>(), 512);
  }
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

TEST(WorkgroupBarriers, LoopBoundFromUniformSharedValueOrArrayElementRunsEverywhere) {
  tack::Kernel k = uniform_load_bounds();
  const std::vector<std::int32_t> rounds = {3, 5};
  auto run = [&](tack::Device& dev) {
    tack::Array out = dev.zeros(tack::DType::I32, {2 * kGroup});
    tack::Array r = dev.from_host(rounds);
    k(out, r);
    return out.to_host<std::int32_t>();
  };
  tack::Device interp = tack::device("interp");
  const std::vector<std::int32_t> expected = run(interp);
  // Work-item 0 of group 1 reads acc[1]: rounds 0..5 of (1 + r).
  EXPECT_EQ(expected[kGroup], 1 + 2 + 3 + 4 + 5 + 6);
  for (tack::Device& dev : running_devices()) {
    SCOPED_TRACE(dev.name());
    EXPECT_EQ(run(dev), expected);
    tack::set_debug(true);  // the checked loads of debug mode stay uniform
    EXPECT_EQ(run(dev), expected);
    tack::set_debug(false);
  }
  for (const std::string& name : kAllBackends) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(tack::inspect(k, name, tack::ArraySpec{tack::DType::I32, 1}, tack::ArraySpec{tack::DType::I32, 1}));
  }
}

TEST(WorkgroupBarriers, VarSetUnderUniformIfBoundsALoopWithABarrier) {
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
  for (tack::Device& dev : running_devices()) {
    SCOPED_TRACE(dev.name());
    tack::Array out = dev.zeros(tack::DType::I32, {3 * kGroup});
    k(out, 4);
    std::vector<std::int32_t> host = out.to_host<std::int32_t>();
    EXPECT_EQ(host[0], 1);
    EXPECT_EQ(host[kGroup], 4);
    EXPECT_EQ(host[2 * kGroup + 7], 4);
  }
}

TEST(WorkgroupBarriers, LoopBoundLoadedAtPerItemIndexIsRefused) {
  auto k = tack::kernel("per_item_load_bound", [](Array out, Array rounds) {
    workgroup_for(1, [&](Group g) {
      for_range(0, rounds[g.local_id()], [&](Index) { g.barrier(); });
      out[g.local_id()] = 1;
    });
  });
  for (const std::string& name : kAllBackends) {
    SCOPED_TRACE(name);
    std::string msg = refusal([&] {
      tack::inspect(k, name, tack::ArraySpec{tack::DType::I32, 1}, tack::ArraySpec{tack::DType::I32, 1});
    });
    EXPECT_NE(msg.find("a barrier inside control flow that depends on the work-item"), std::string::npos) << msg;
  }
}

}  // namespace
