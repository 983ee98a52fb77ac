// Bounded waits (TACK_WAIT_TIMEOUT_S): every backend's synchronize and marker
// wait goes through here, so a kernel that never ends raises a BackendError
// naming it instead of hanging the process (docs/reliability.md, "Waits").
// Unset or 0: wait forever, with the driver's own blocking wait (no polling).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace tack::runtime {

// TACK_WAIT_TIMEOUT_S in seconds, read once; 0 when unset, empty or 0.
// A value that is not a non-negative number is refused with InvalidArgument,
// once: later calls return 0.
double wait_timeout_s();
// Overrides the value for the rest of the process (tests of the stand-in drivers).
void set_wait_timeout_s(double seconds);

// The name of the kernel a queue last queued: a pointer to the variant's name
// (variants live as long as their backend), so remembering it costs a store.
class LastKernel {
 public:
  void set(const std::string& name) { name_.store(&name, std::memory_order_relaxed); }
  // "kernel 'name'", or "no kernel" before the first launch.
  std::string describe() const;

 private:
  std::atomic<const std::string*> name_{nullptr};
};

// The BackendError a wait raises when the deadline passes: names the backend,
// the timeout and the kernel last queued.
[[noreturn]] void throw_wait_timeout(const char* backend, const char* what, const LastKernel& last);

// Polls done() (true once the awaited work has finished, or failed: the caller
// then reads the error) with a growing sleep, from 20 us up to 5 ms, until the
// deadline of wait_timeout_s(), then throws as throw_wait_timeout. Call only
// when wait_timeout_s() > 0.
template <class Done>
void poll_until_done(const char* backend, const char* what, const LastKernel& last, Done done) {
  using clock = std::chrono::steady_clock;
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(wait_timeout_s()));
  std::chrono::microseconds pause(20);
  for (;;) {
    if (done()) return;
    if (clock::now() >= deadline) throw_wait_timeout(backend, what, last);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

// The timeout in nanoseconds for drivers whose wait takes one (Level Zero):
// UINT64_MAX (forever) when no timeout is set or the value is malformed (never throws).
std::uint64_t wait_timeout_ns() noexcept;

}  // namespace tack::runtime
