// The GPU backends' limit checks and their messages, written once.
#include "runtime/gpu/gpu_limits.hpp"

#include "abi/group_size.hpp"
#include "runtime/diagnostics/group_size_error.hpp"

#include <tack/error.hpp>

#include <algorithm>

namespace tack::runtime {
namespace {
constexpr auto kGroup = static_cast<std::uint32_t>(abi::kGroupSize);
}  // namespace

std::uint64_t groups_for(std::int64_t count, bool workgroup, std::uint32_t group) {
  const auto n = static_cast<std::uint64_t>(count);
  return workgroup ? n : n / group + (n % group != 0);
}

void check_array_bytes(const GpuLimits& limits, std::size_t bytes, const char* what) {
  const std::uint64_t most = limits.max_array_bytes;
  if (!most || bytes <= most) return;
  const std::string head = limits.backend + ": " + what + " of " + std::to_string(bytes) + " bytes is larger than ";
  if (!limits.allocation_limit)
    throw InvalidArgument(head + "the " + std::to_string(most) + " bytes of " + limits.device);
  throw InvalidArgument(head + limits.device + " allows for one allocation (" + std::to_string(most) + " bytes, " +
                        limits.allocation_limit + ")");
}

void check_launch_groups(const GpuLimits& limits, const std::string& kernel, std::int64_t count, bool workgroup,
                         std::uint32_t group) {
  const std::uint64_t groups = groups_for(count, workgroup, group);
  // Counted in work-items, the limit is compared in whole groups, so the product cannot overflow.
  const std::uint64_t most = limits.launch_counts_items ? limits.max_launch / group : limits.max_launch;
  if (groups <= most) return;
  throw InvalidArgument("kernel '" + kernel + "': a launch of " + std::to_string(count) +
                        (workgroup ? " groups" : " work-items") + " needs " + std::to_string(groups) + " " +
                        limits.groups_word + " of " + std::to_string(group) + " " + limits.items_word + ", more than " +
                        limits.device + " runs in one launch (" + std::to_string(limits.max_launch) +
                        (limits.launch_counts_items ? std::string(" ") + limits.items_word : std::string()) + ", " +
                        limits.launch_limit_why + ")");
}

std::uint32_t group_for_program(const GpuLimits& limits, const std::string& kernel, bool workgroup, std::size_t limit) {
  if (!workgroup) {
    // The generated index is group * group size + local id, so a program that runs fewer work-items per group
    // (one needing many registers) runs in smaller groups.
    const std::size_t granule = limits.group_granule;
    return static_cast<std::uint32_t>(std::clamp<std::size_t>(limit / granule * granule, granule, kGroup));
  }
  if (limit >= kGroup) return kGroup;
  throw GroupSizeError("kernel '" + kernel + "' needs " + limits.groups_word + " of " + std::to_string(kGroup) + " " +
                       limits.items_word + ", but " + limits.device + " runs it with at most " + std::to_string(limit) +
                       (limits.group_limit_why ? std::string(" (") + limits.group_limit_why + ")" : std::string()));
}

}  // namespace tack::runtime
