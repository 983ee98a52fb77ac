// What a GPU device allows, read once when its backend opens, and the one
// wording of each refusal: an array larger than the device takes, a launch of
// more groups (or work-items) than one dispatch holds, a workgroup kernel the
// compiled program cannot run in groups of 256. Each backend names its own
// device, words ("blocks of 256 threads") and the driver attribute behind each
// limit, so a message says where the number comes from.
#pragma once

#include "abi/group_size.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tack::runtime {

struct GpuLimits {
  std::string backend;  // "cuda": the memory message starts with it
  std::string device;   // the device as messages name it

  // The most bytes one array may have (0: not known, nothing is refused), and which limit that is: null for all
  // of the device's memory, else the driver's name of its limit on one allocation.
  std::uint64_t max_array_bytes = 0;
  const char* allocation_limit = nullptr;

  // What a group and a work-item are called ("blocks", "threads").
  const char* groups_word = "groups";
  const char* items_word = "work-items";
  // Why a program runs fewer work-items per group than asked, when the driver says ("too many registers").
  const char* group_limit_why = nullptr;
  // A parallel kernel runs in groups of a multiple of this (whole warps), at most abi::kGroupSize.
  std::uint32_t group_granule = 1;
  // The group size check_launch_size assumes for a parallel kernel, before its program says how many it runs.
  std::uint32_t parallel_group = static_cast<std::uint32_t>(abi::kGroupSize);

  // One launch holds at most max_launch groups, or work-items where launch_counts_items; launch_limit_why names
  // the attribute (or the reason) behind the number.
  std::uint64_t max_launch = 0;
  bool launch_counts_items = false;
  std::string launch_limit_why;

  // Groups of 256 an array reduction launches at most: enough to fill the device, each lane striding over the rest.
  std::uint64_t max_reduction_groups = 1;
};

// The groups a launch of `count` has: count groups of a workgroup kernel, else count work-items in whole groups.
std::uint64_t groups_for(std::int64_t count, bool workgroup, std::uint32_t group);

// Refuses an array of `bytes` past limits.max_array_bytes with InvalidArgument; `what` is "an array".
void check_array_bytes(const GpuLimits& limits, std::size_t bytes, const char* what);

// Refuses a launch of `count` in groups of `group` that one dispatch cannot hold, with InvalidArgument.
void check_launch_groups(const GpuLimits& limits, const std::string& kernel, std::int64_t count, bool workgroup,
                         std::uint32_t group);

// The group size a program that runs at most `limit` work-items per group is launched with: a workgroup kernel's
// 256 (BackendError where limit is smaller), else the most up to abi::kGroupSize in whole granules.
std::uint32_t group_for_program(const GpuLimits& limits, const std::string& kernel, bool workgroup, std::size_t limit);

}  // namespace tack::runtime
