// A texture's snapshot on the level_zero backend (software textures until the
// image path lands) is taken on the device: one device-to-device
// zeCommandListAppendMemoryCopy with its barrier, queued with the launches,
// with no host staging and no wait. Linked into tack_level_zero_runtime_tests,
// over the stand-in loader.
#include "support/fake_level_zero/fake_level_zero.hpp"

#include "backends/level_zero/level_zero_memory.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

namespace l0 = tack::backends::level_zero;

std::vector<float> snapshot_of(const tack::Texture& t, std::size_t n) {
  std::vector<float> out(n);
  tack::detail::Access::storage(t)->copy->buffer->read(0, out.data(), n * sizeof(float));
  return out;
}

void* snapshot_pointer(const tack::Texture& t) { return l0::device_pointer(*tack::detail::Access::storage(t)->copy); }

// Log entries from `from` on.
std::vector<std::string> entries_from(int from) {
  std::vector<std::string> out;
  for (int i = from; i < fake_ze_log_size(); ++i) out.emplace_back(fake_ze_log_entry(i));
  return out;
}

class LevelZeroTextureCopy : public ::testing::Test {
 protected:
  void SetUp() override { fake_ze_reset(); }
  void TearDown() override {
    EXPECT_STREQ(fake_ze_misuse(), "") << "the backend misused the driver";
    fake_ze_reset();
  }
};

// The one copy into the texture's snapshot among the entries from `from`: device memory to device memory.
void expect_one_device_copy(int from, void* snapshot) {
  int copies = 0;
  for (int i = from; i < fake_ze_log_size(); ++i) {
    FakeZeOp op{};
    ASSERT_TRUE(fake_ze_log_op(i, &op));
    if (std::string(fake_ze_log_entry(i)) != "copy" || op.dst != snapshot) continue;
    ++copies;
    EXPECT_EQ(op.src_kind, 2) << "copied from the array's device memory, not staged through the host";
    EXPECT_EQ(op.bytes, 8 * sizeof(float));
  }
  EXPECT_EQ(copies, 1);
  for (const std::string& e : entries_from(from)) {
    EXPECT_NE(e, "list_sync") << "the copy is queued, not waited for";
    EXPECT_NE(e, "event_sync") << "the copy is queued, not waited for";
  }
}

TEST_F(LevelZeroTextureCopy, TheSnapshotIsADeviceCopyWithNoHostRoundTripOrWait) {
  tack::Device d = tack::device("level_zero");
  tack::Array a = d.from_host(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  int from = fake_ze_log_size();
  tack::Texture t = tack::texture3d(a, {2, 2, 2});
  expect_one_device_copy(from, snapshot_pointer(t));
  EXPECT_EQ(snapshot_of(t, 8), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

  a.fill(9.0f);
  EXPECT_EQ(snapshot_of(t, 8), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8})) << "a write to the array stays out";
  from = fake_ze_log_size();
  t.update();
  expect_one_device_copy(from, snapshot_pointer(t));
  EXPECT_EQ(snapshot_of(t, 8), std::vector<float>(8, 9.0f));
}

}  // namespace
