// What the launch-path tests of cuda (over tests/support/fake_cuda) and hip
// (over tests/support/fake_hip) share: two kernels, and readers of a stand-in
// driver's operation log. A log
// is any type with `int size() const` and `LoggedOp at(int index) const`; a
// launch record any type with `param_count`, `params[i]` (the first bytes of
// each parameter's value) and `log_index` (its position in the log).
#pragma once

#include <tack/tack.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tack_test {

// One log entry: "htod", "dtoh", "memset", "alloc", "launch <entry>", ...; the device pointer written, read,
// allocated or freed, the byte count and, for htod, the bytes uploaded.
struct LoggedOp {
  std::string what;
  std::uint64_t pointer = 0;
  std::size_t bytes = 0;
  const void* payload = nullptr;
};

// Parameter i of a launch as a 64-bit value (a device pointer, __n__).
template <class Launch>
std::uint64_t param_u64(const Launch& l, int i) {
  std::uint64_t v = 0;
  std::memcpy(&v, l.params[i], sizeof v);
  return v;
}

// The index of the first entry at or after `from` that equals `what` (or starts with it, for "launch "), and with
// `pointer` where that is not 0; else -1.
template <class Log>
int find_entry(const Log& log, const std::string& what, int from = 0, std::uint64_t pointer = 0) {
  for (int i = from; i < log.size(); ++i) {
    const LoggedOp op = log.at(i);
    if (op.what.rfind(what, 0) != 0) continue;
    if (pointer && op.pointer != pointer) continue;
    return i;
  }
  return -1;
}

// Whether the htod payloads written, since the previous launch, to the pointer parameters of launch `l` other than
// `skip` contain the float `value`: the scalar pack this launch reads.
template <class Log, class Launch>
bool pack_holds(const Log& log, const Launch& l, int previous_launch_log_index, float value,
                const std::vector<std::uint64_t>& skip) {
  for (int p = 0; p + 1 < l.param_count; ++p) {
    const std::uint64_t ptr = param_u64(l, p);
    if (std::find(skip.begin(), skip.end(), ptr) != skip.end()) continue;
    // The last upload to this pack before the launch.
    for (int i = l.log_index - 1; i > previous_launch_log_index; --i) {
      const LoggedOp op = log.at(i);
      if (op.what != "htod" || op.pointer != ptr) continue;
      for (std::size_t at = 0; at + sizeof(float) <= op.bytes; at += sizeof(float)) {
        float f;
        std::memcpy(&f, static_cast<const unsigned char*>(op.payload) + at, sizeof f);
        if (f == value) return true;
      }
      break;
    }
  }
  return false;
}

inline const tack::Kernel& saxpy() {
  using namespace tack::lang;
  static const tack::Kernel k = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}
inline const tack::Kernel& fill_n() {
  using namespace tack::lang;
  static const tack::Kernel k =
      tack::kernel("fill_n", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i] = 7.0f; }); });
  return k;
}

}  // namespace tack_test
