// The CPU's one Jit per process, shared by every CPU device.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/cpu/jit.hpp"

#include <vector>

using namespace tack::lang;

namespace {

tack::Kernel add_one() {
  return tack::kernel("add_one", [](Array a) { parallel_for(a.size(), [&](Index i) { a[i] = a[i] + 1; }); });
}

bool adds_one(const tack::Device& d, const tack::Kernel& k) {
  tack::Array a = d.from_host(std::vector<float>{1, 2, 3});
  k(a);
  return a.to_host<float>() == std::vector<float>{2, 3, 4};
}

TEST(CpuSharedJit, EveryCpuDeviceUsesTheOneJit) {
  tack::backends::cpu::Jit& jit = tack::backends::cpu::shared_jit();
  tack::Device one = tack::device("cpu", {{"num_threads", std::int64_t{1}}});
  tack::Device two = tack::device("cpu", {{"num_threads", std::int64_t{2}}});
  auto k = add_one();
  // A new kernel: each device makes a variant of its own (compiled, or loaded from the disk cache), and the
  // Jit that makes it counts it; a backend with a Jit of its own would leave the shared one's count unchanged.
  const std::uint64_t before = jit.uses();
  EXPECT_TRUE(adds_one(one, k));
  const std::uint64_t after_one = jit.uses();
  EXPECT_GT(after_one, before) << "device one's variant was made by another Jit";
  EXPECT_TRUE(adds_one(two, k));  // a variant of its own, in its own JIT library of the same Jit
  EXPECT_GT(jit.uses(), after_one) << "device two's variant was made by another Jit";
  EXPECT_EQ(&jit, &tack::backends::cpu::shared_jit());
}

}  // namespace
