// TACK_WAIT_TIMEOUT_S and the error of a wait that ran past it.
#include "runtime/waits/wait_deadline.hpp"

#include "support/env.hpp"

#include <tack/error.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace tack::runtime {
namespace {

// -1: not read yet.
std::atomic<double> g_timeout{-1.0};

double read_timeout() {
  const std::optional<std::string> v = support::env_text("TACK_WAIT_TIMEOUT_S");
  if (!v) return 0.0;
  char* end = nullptr;
  const double s = std::strtod(v->c_str(), &end);
  if (end == v->c_str() || *end != '\0' || !std::isfinite(s) || s < 0)
    throw InvalidArgument("TACK_WAIT_TIMEOUT_S='" + *v +
                          "' is not a number of seconds (0 or unset: waits never time out)");
  return s;
}

}  // namespace

double wait_timeout_s() {
  double t = g_timeout.load(std::memory_order_relaxed);
  if (t >= 0) return t;
  try {
    t = read_timeout();
  } catch (const Error&) {
    // Raised once, at the first wait; later waits (some in destructors, which must not throw) wait forever.
    g_timeout.store(0.0, std::memory_order_relaxed);
    throw;
  }
  g_timeout.store(t, std::memory_order_relaxed);
  return t;
}

void set_wait_timeout_s(double seconds) { g_timeout.store(seconds > 0 ? seconds : 0.0, std::memory_order_relaxed); }

std::uint64_t wait_timeout_ns() noexcept {
  double s = 0;
  try {
    s = wait_timeout_s();
  } catch (const Error&) {
    // Reported by the wait that calls wait_timeout_s() itself.
  }
  if (s <= 0 || s >= 1e9) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(s * 1e9);
}

std::string LastKernel::describe() const {
  const std::string* n = name_.load(std::memory_order_relaxed);
  return n ? "kernel '" + *n + "'" : std::string("no kernel");
}

void throw_wait_timeout(const char* backend, const char* what, const LastKernel& last) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", wait_timeout_s());
  throw BackendError(std::string(backend) + ": " + what + " did not finish within " + seconds +
                     " s (TACK_WAIT_TIMEOUT_S); the last launch queued was " + last.describe() +
                     ", which may never end (an endless loop?); the device is still busy with it");
}

}  // namespace tack::runtime
