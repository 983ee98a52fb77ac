// A texture's snapshot on the hip backend (no hardware textures yet, so a
// software copy) is taken on the device: hipMemcpyDtoDAsync on the stream,
// queued with the launches, with no host round trip and no wait, except that a
// shared source's snapshot completes before texture3d() and update() return.
// Linked into tack_hip_runtime_tests, over the stand-in runtime.
#include "support/fake_hip/fake_hip.hpp"

#include "runtime/devices/backend.hpp"
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

std::vector<float> snapshot_of(const tack::Texture& t, std::size_t n) {
  std::vector<float> out(n);
  tack::detail::Access::storage(t)->copy->buffer->read(0, out.data(), n * sizeof(float));
  return out;
}

TEST(HipTextureCopy, TheSnapshotIsADeviceCopyWithNoHostRoundTripOrWait) {
  tack::Device d = tack::device("hip");
  tack::Array a = d.from_host(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  fake_hip::take_calls();
  tack::Texture t = tack::texture3d(a, {2, 2, 2});
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoDAsync"), 1);
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoHAsync"), 0) << "no read through the host";
  EXPECT_EQ(count_of(calls, "hipMemcpyHtoDAsync"), 0) << "no write from the host";
  EXPECT_EQ(count_of(calls, "hipEventSynchronize"), 0) << "the copy is queued, not waited for";
  EXPECT_EQ(snapshot_of(t, 8), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

  a.fill(9.0f);
  fake_hip::take_calls();
  EXPECT_EQ(snapshot_of(t, 8), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8})) << "a write to the array stays out";
  fake_hip::take_calls();
  t.update();
  calls = fake_hip::take_calls();
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoDAsync"), 1);
  EXPECT_EQ(count_of(calls, "hipMemcpyDtoHAsync") + count_of(calls, "hipEventSynchronize"), 0);
  EXPECT_EQ(snapshot_of(t, 8), std::vector<float>(8, 9.0f));
}

TEST(HipTextureCopy, ASharedSourcesSnapshotCompletesBeforeReturning) {
  tack::Device d = tack::device("hip");
  tack::Array a = d.from_host(std::vector<float>(8, 1.0f));
  a.share();
  fake_hip::take_calls();
  tack::Texture t = tack::texture3d(a, {2, 2, 2});
  std::vector<std::string> calls = fake_hip::take_calls();
  const auto copy = std::find(calls.begin(), calls.end(), "hipMemcpyDtoDAsync");
  ASSERT_NE(copy, calls.end());
  EXPECT_NE(std::find(copy, calls.end(), "hipEventSynchronize"), calls.end())
      << "memory outside Tack may change once texture3d returns, so the copy has completed";
}

}  // namespace
