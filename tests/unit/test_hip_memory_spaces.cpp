// The hip device's memory spaces over the stand-in runtime (linked into
// tack_hip_runtime_tests): "hip" (the buffer cache or the pool), "hip_pinned"
// (hipHostMalloc, mapped) and "hip_managed" (hipMallocManaged). A host read
// of either of the last two waits and copies with memcpy (no
// device-to-host copy); they never enter the buffer cache and are freed after
// the stream's queued work.
#include "support/fake_hip/fake_hip.hpp"

#include "backends/hip/hip_memory.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

int count_of(const std::vector<std::string>& calls, const std::string& name) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), name));
}

struct SpaceCase {
  const char* space;
  const char* alloc;
  const char* free;
};

TEST(HipMemorySpaces, ArraysInEachSpaceFillAndReadBackWithoutADeviceToHostCopy) {
  tack::Device d = tack::device("hip");
  for (const SpaceCase& c : {SpaceCase{"hip_pinned", "hipHostMalloc", "hipHostFree"},
                             SpaceCase{"hip_managed", "hipMallocManaged", "hipFree"}}) {
    SCOPED_TRACE(c.space);
    fake_hip::take_calls();
    {
      tack::Array a = d.zeros(tack::DType::I32, {100}, c.space);
      std::vector<std::string> calls = fake_hip::take_calls();
      EXPECT_EQ(count_of(calls, c.alloc), 1);
      EXPECT_EQ(count_of(calls, "hipMalloc"), 0) << "not from the buffer cache";
      a.fill(7);
      EXPECT_EQ(a.to_host<std::int32_t>(), std::vector<std::int32_t>(100, 7));
      calls = fake_hip::take_calls();
      EXPECT_EQ(count_of(calls, "hipMemcpyDtoHAsync"), 0) << "the host reads the memory itself";
      EXPECT_GE(count_of(calls, "hipEventSynchronize"), 1) << "after the stream's work";
    }
    const std::vector<std::string> calls = fake_hip::take_calls();
    const auto wait = std::find(calls.begin(), calls.end(), "hipEventSynchronize");
    const auto free = std::find(calls.begin(), calls.end(), c.free);
    ASSERT_NE(free, calls.end()) << "freed, not kept in the buffer cache";
    EXPECT_LT(wait, free) << "a queued launch may still use the memory";
  }
}

TEST(HipMemorySpaces, ASpaceTheDeviceDoesNotListIsRefused) {
  try {
    tack::device("hip").zeros(tack::DType::F32, {4}, "cuda_managed");
    FAIL() << "expected InvalidArgument";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("the hip device has no memory space 'cuda_managed'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
