// The CPU's one Jit per process: made in the background when a CPU device is
// made (or warm_up_shared_jit is called), shared by every CPU device, and safe
// across fork, which waits for a warm-up in progress so a child never inherits
// a half-made Jit.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/cpu/jit.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
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
  tack::runtime::cpu::Jit& jit = tack::runtime::cpu::shared_jit();
  tack::Device one = tack::device("cpu", {{"num_threads", std::int64_t{1}}});
  tack::Device two = tack::device("cpu", {{"num_threads", std::int64_t{2}}});
  auto k = add_one();
  EXPECT_TRUE(adds_one(one, k));
  EXPECT_TRUE(adds_one(two, k));  // a variant of its own, in its own JIT library of the same Jit
  EXPECT_EQ(&jit, &tack::runtime::cpu::shared_jit());
}

// Forks right after starting the warm-up, many times: each child must compile and run a kernel.
TEST(CpuSharedJit, ForkDuringTheWarmUpGivesTheChildAWholeJit) {
  for (int round = 0; round < 8; ++round) {
    tack::runtime::cpu::warm_up_shared_jit();
    std::fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      bool ok = false;
      try {
        ok = adds_one(tack::device("cpu", {{"num_threads", std::int64_t{1}}}), add_one());
      } catch (...) {
      }
      std::_Exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "round " << round;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "round " << round;
  }
}

}  // namespace
