// The process-wide debug flag, initialized from TACK_DEBUG.
#include "runtime/kernels/debug_mode.hpp"

#include "support/env.hpp"

#include <atomic>

namespace tack {
namespace {
std::atomic<bool>& flag() {
  static std::atomic<bool> f{support::env_flag("TACK_DEBUG")};
  return f;
}
}  // namespace
bool debug() { return flag().load(std::memory_order_relaxed); }
void set_debug(bool on) { flag().store(on, std::memory_order_relaxed); }
}  // namespace tack
