// Array::sum/min/max of f32 on a device (reference: "Device reductions"): the
// reduction kernel (array_reduction_kernel) launched through Kernel::launch like
// any kernel. A backend that reduces on its device owns one of these and gives
// only its limit on the number of groups.
#pragma once

#include "runtime/reductions/host_reduce.hpp"

#include <array>
#include <atomic>
#include <cstdint>

namespace tack::runtime {

struct ArrayStorage;

class DeviceReductions {
 public:
  // Reduces the f32 `array` on its device in at most `max_groups` groups of 256 and waits: true with the result in
  // *out, or false where the device cannot run the kernel's groups of 256 (then the host reduces, and every later
  // reduction of `op` on this device too). An empty array's sum is 0.0 without a launch.
  bool run(const ArrayStorage& array, ReduceOp op, std::uint64_t max_groups, double* out);
  // How many reductions this process has run on a device (launched and read back): the tests of
  // Array::sum/min/max tell the device path from the host's, whose results are the same.
  static std::uint64_t launch_count();

 private:
  std::array<std::atomic<bool>, 3> declined_{};
};

}  // namespace tack::runtime
