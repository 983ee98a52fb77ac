// The GPU backends' shared limit checks (runtime/gpu/gpu_limits): where a
// launch counted in groups or in work-items stops fitting, the group size a
// program's limit gives, and the words of each refusal.
#include "runtime/gpu/gpu_limits.hpp"

#include <tack/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

namespace {
using tack::runtime::check_array_bytes;
using tack::runtime::check_launch_groups;
using tack::runtime::GpuLimits;
using tack::runtime::group_for_program;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tack::Error& e) {
    return e.what();
  }
  return "";
}

GpuLimits blocks_limits() {
  return {.backend = "cuda",
          .device = "GPU",
          .max_array_bytes = 1000,
          .groups_word = "blocks",
          .items_word = "threads",
          .group_limit_why = "too many registers",
          .group_granule = 32,
          .max_launch = 4,
          .launch_limit_why = "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X"};
}

TEST(GpuLimits, LaunchCountedInGroups) {
  const GpuLimits l = blocks_limits();
  check_launch_groups(l, "k", 4 * 256, false, 256);
  check_launch_groups(l, "k", 4, true, 256);
  EXPECT_EQ(message_of([&] { check_launch_groups(l, "k", 4 * 256 + 1, false, 256); }),
            "kernel 'k': a launch of 1025 work-items needs 5 blocks of 256 threads, more than GPU runs in one launch "
            "(4, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)");
  EXPECT_THROW(check_launch_groups(l, "k", 5, true, 256), tack::InvalidArgument);
}

TEST(GpuLimits, LaunchCountedInWorkItemsNeverOverflows) {
  GpuLimits l = blocks_limits();
  l.launch_counts_items = true;
  l.max_launch = (std::uint64_t{1} << 32) - 256;  // hip's packet limit
  l.launch_limit_why = "why";
  check_launch_groups(l, "k", (std::int64_t{1} << 32) - 256, false, 256);
  EXPECT_THROW(check_launch_groups(l, "k", (std::int64_t{1} << 32) - 255, false, 256), tack::InvalidArgument);
  check_launch_groups(l, "k", (std::int64_t{1} << 24) - 1, true, 256);
  EXPECT_THROW(check_launch_groups(l, "k", std::int64_t{1} << 24, true, 256), tack::InvalidArgument);
  // 2^57 groups of 256 would overflow 64 bits as a product.
  l.max_launch = UINT64_MAX;
  EXPECT_NE(message_of([&] {
              check_launch_groups(l, "k", std::int64_t{1} << 57, true, 256);
            }).find("(18446744073709551615 threads, why)"),
            std::string::npos);
}

TEST(GpuLimits, GroupSizeFromTheProgramsLimit) {
  const GpuLimits l = blocks_limits();
  EXPECT_EQ(group_for_program(l, "k", false, 1024), 256u);
  EXPECT_EQ(group_for_program(l, "k", false, 200), 192u);  // whole warps
  EXPECT_EQ(group_for_program(l, "k", false, 8), 32u);
  EXPECT_EQ(group_for_program(l, "k", true, 256), 256u);
  EXPECT_EQ(message_of([&] { group_for_program(l, "k", true, 128); }),
            "kernel 'k' needs blocks of 256 threads, but GPU runs it with at most 128 (too many registers)");
}

TEST(GpuLimits, ArrayBytes) {
  GpuLimits l = blocks_limits();
  check_array_bytes(l, 1000, "an array");
  EXPECT_EQ(message_of([&] { check_array_bytes(l, 1001, "an array"); }),
            "cuda: an array of 1001 bytes is larger than the 1000 bytes of GPU");
  l.allocation_limit = "maxMemAllocSize";
  EXPECT_EQ(message_of([&] { check_array_bytes(l, 1001, "an array"); }),
            "cuda: an array of 1001 bytes is larger than GPU allows for one allocation (1000 bytes, maxMemAllocSize)");
  l.max_array_bytes = 0;  // unknown: nothing refused
  check_array_bytes(l, SIZE_MAX, "an array");
}

}  // namespace
