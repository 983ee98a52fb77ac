// The estimator behind LaunchPolicy. Every timing of a serial run is an upper
// bound on the kernel's cost (preemption, interrupts and cache misses only add
// time), so the estimate leans to the low samples; but a variant's cost can
// really rise (a scalar argument sets an inner loop's trip count, and scalars
// are not part of the variant's key), so a rise confirmed by a second sample is
// believed.
#include "backends/cpu/launch_policy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tack::backends::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// The cost of one steady_clock::now(): the best of a few runs of 16 reads.
double measure_clock_seconds() {
  double best = 1.0;
  for (int r = 0; r < 5; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < 15; ++i) (void)Clock::now();
    auto t1 = Clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count() / 16);
  }
  return best;
}

double process_clock_seconds() {
  static const double seconds = measure_clock_seconds();
  return seconds;
}

}  // namespace

LaunchPolicy::LaunchPolicy() : clock_seconds_(process_clock_seconds()) {}

LaunchPolicy::LaunchPolicy(double clock_seconds)
    : clock_seconds_(std::isfinite(clock_seconds) && clock_seconds > 0 ? clock_seconds : 0.0) {}

std::int64_t LaunchPolicy::probe_size(std::int64_t count) const {
  if (count <= 0) return 0;
  double cost = cost_.load(std::memory_order_relaxed);
  std::int64_t p = kFirstProbe;
  if (cost > 0) {
    double want = kProbeClockReads * clock_seconds_ / cost;
    p = want >= static_cast<double>(kMaxProbe) ? kMaxProbe
                                               : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(want)));
  }
  return std::min(count, p);
}

bool LaunchPolicy::record(std::int64_t count, double seconds) {
  if (count <= 0 || !(seconds > 0) || !std::isfinite(seconds)) return false;
  const double c = seconds / static_cast<double>(count);
  const bool trusted = seconds >= kTrustedClockReads * clock_seconds_;

  std::lock_guard<std::mutex> lock(mutex_);
  samples_.store(samples_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  double estimate = cost_.load(std::memory_order_relaxed);
  if (!trusted) {
    // Only an upper bound: it can lower the estimate, never raise it.
    if (estimate < 0 || c < estimate) cost_.store(c, std::memory_order_relaxed);
    return false;
  }
  if (estimate < 0 || !trusted_.load(std::memory_order_relaxed)) {
    estimate = c;
    trusted_.store(true, std::memory_order_relaxed);
    suspect_.store(false, std::memory_order_relaxed);
  } else if (c > kOutlierFactor * estimate) {
    if (suspect_.load(std::memory_order_relaxed)) {
      estimate = std::min(outlier_, c);  // confirmed: the cost has changed
      suspect_.store(false, std::memory_order_relaxed);
    } else {
      outlier_ = c;  // probably a preempted run; ask for another sample
      suspect_.store(true, std::memory_order_relaxed);
    }
  } else {
    suspect_.store(false, std::memory_order_relaxed);
    if (c * kOutlierFactor < estimate)
      estimate = c;
    else if (c < estimate)
      estimate += (c - estimate) * 0.5;
    else
      estimate += (c - estimate) * 0.125;
  }
  cost_.store(estimate, std::memory_order_relaxed);
  return true;
}

std::int64_t LaunchPolicy::sample(std::int64_t count, ThreadPool::ChunkFn fn, void* context) {
  std::int64_t done = 0;
  std::int64_t last = 0;
  // The variant's very first iteration runs untimed: fresh code pays for cold instruction caches, TLB misses
  // and page faults on its code and data, and a tiny first launch would take that for the kernel's cost and
  // fan out (starting the pool's workers) for nothing.
  if (count > 0 && !warmed_.exchange(true, std::memory_order_relaxed)) {
    fn(context, 0, kFirstProbe);
    done = kFirstProbe;
  }
  while (done < count) {
    std::int64_t p = std::min(count - done, std::max(probe_size(count - done), 2 * last));
    auto t0 = Clock::now();
    fn(context, done, done + p);
    double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    done += p;
    last = p;
    if (record(p, seconds)) break;
  }
  return done;
}

}  // namespace tack::backends::cpu
