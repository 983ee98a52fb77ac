// Serial or fan-out, per compiled variant: fan out when the launch's estimated
// serial time exceeds K times the pool's measured fan-out overhead. The
// estimate is the variant's cost per iteration, measured by timing serial
// prefixes of launches (docs/cpu-threading.md).
#pragma once

#include "backends/cpu/thread_pool.hpp"
#include "support/no_copy.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace tack::backends::cpu {

// One per compiled variant. Thread-safe: several host threads may launch the
// same variant. fan_out(), wants_sample() and probe_size() read relaxed atomics
// and take no lock and no clock; record() and sample() take a mutex.
//
// A launch of [0, count) goes
//
//   std::int64_t done = 0;
//   if (pool.threads() > 1 && policy.wants_sample())
//     done = policy.sample(count, fn, context);   // times [0, done) serially; done <= count
//   if (done == count) return;
//   if (policy.fan_out(count - done, pool))
//     pool.run_range(done, count, 1, fn, context);
//   else
//     fn(context, done, count);
//
// sample() may be replaced by the runtime's own timing: p = probe_size(count),
// run [0, p) serially, record(p, seconds), repeated while record() says the
// time was too short to trust (see sample()).
class LaunchPolicy : support::NoCopy {
 public:
  // K: fan out when count * cost_per_iteration > K * fanout_seconds, so the
  // fan-out costs at most 1/K (25%) of the serial time it replaces.
  static constexpr double kOverheadFactor = 4.0;
  // wants_sample() is true for the first kYoungSamples records, then on one
  // launch in kSampleEvery (at random, per host thread).
  static constexpr int kYoungSamples = 8;
  static constexpr std::uint32_t kSampleEvery = 64;  // a power of two
  // A sample more than this many times the estimate is taken for a preempted
  // run and ignored, unless the next sample confirms it (then it is the new cost).
  static constexpr double kOutlierFactor = 10.0;
  // A timing of at least kTrustedClockReads clock reads is trusted; a shorter one
  // is only an upper bound on the cost. Probes aim at kProbeClockReads reads.
  static constexpr double kTrustedClockReads = 8.0;
  static constexpr double kProbeClockReads = 32.0;
  // The first probe: one iteration (a variant whose iterations take
  // milliseconds must not run many serially); later ones are sized from the estimate.
  static constexpr std::int64_t kFirstProbe = 1;
  static constexpr std::int64_t kMaxProbe = std::int64_t{1} << 24;

  // Uses the cost of one steady_clock::now(), measured once per process.
  LaunchPolicy();
  // Uses the given clock cost, in seconds (tests inject timings with it).
  explicit LaunchPolicy(double clock_seconds);

  // Whether a launch of count iterations (what is left after any sample) should
  // fan out over the pool. Never with one thread or fewer than 2 iterations.
  // Before any record(), assumes nothing: fans out above kNoEstimateCount.
  bool fan_out(std::int64_t count, const ThreadPool& pool) const {
    // The pool's fan-out cost is asked only when it decides (it is measured at the first ask).
    if (pool.threads() < 2 || count < 2) return false;
    const double cost = cost_.load(std::memory_order_relaxed);
    if (cost < 0) return count > kNoEstimateCount;
    // No pool fans out in under a microsecond: a launch below that bound runs
    // serially without asking (and without the measurement a first ask makes).
    if (static_cast<double>(count) * cost <= kOverheadFactor * kMinFanoutSeconds) return false;
    return fan_out(count, pool.threads(), pool.fanout_seconds());
  }
  static constexpr double kMinFanoutSeconds = 1e-6;
  bool fan_out(std::int64_t count, int threads, double fanout_seconds) const {
    if (threads < 2 || count < 2) return false;
    double cost = cost_.load(std::memory_order_relaxed);
    if (cost < 0) return count > kNoEstimateCount;
    return static_cast<double>(count) * cost > kOverheadFactor * fanout_seconds;
  }
  static constexpr std::int64_t kNoEstimateCount = 1024;

  // Whether this launch should time a serial prefix: the first kYoungSamples
  // records, after a suspected outlier, and then one launch in kSampleEvery.
  bool wants_sample() const {
    if (samples_.load(std::memory_order_relaxed) < kYoungSamples || suspect_.load(std::memory_order_relaxed))
      return true;
    return one_in_sample_every();
  }

  // How many leading iterations of a launch of count to run serially and time
  // now: kFirstProbe before any estimate, else enough for about
  // kProbeClockReads clock reads at the estimated cost; at most count.
  std::int64_t probe_size(std::int64_t count) const;

  // Reports that count iterations ran serially in seconds. Returns true when the
  // time was long enough to trust (kTrustedClockReads clock reads); a shorter
  // one only bounds the cost from above. Ignores count <= 0 and times that are
  // not positive and finite.
  //
  // The estimate: the first trusted sample sets it; later ones move it, down
  // by half the difference (a fast run is the kernel's cost, a slow one may be
  // noise), up by an eighth, and to a sample below 1/kOutlierFactor of it at
  // once. A sample above kOutlierFactor times it is ignored unless the next
  // trusted sample is one too (wants_sample() asks for it at once); then the
  // smaller of the two becomes the estimate (the cost changed, e.g. with a
  // scalar argument that sets an inner loop's length).
  bool record(std::int64_t count, double seconds);

  // Times leading probes of [0, count) serially (fn over [0, p), then [p, q),
  // ...) and records them, until one is trusted or the range is done; each
  // probe at least twice the last. The first call for a variant runs iteration
  // 0 untimed before the probes: fresh code's cold caches would pass for the
  // kernel's cost. Returns the iterations run (<= count; 0 only when count <=
  // 0). Exceptions from fn propagate (the estimate keeps what was recorded before).
  std::int64_t sample(std::int64_t count, ThreadPool::ChunkFn fn, void* context);

  // Seconds per iteration; negative before any record().
  double cost_per_iteration() const { return cost_.load(std::memory_order_relaxed); }
  // Whether the estimate rests on a trusted sample.
  bool trusted() const { return trusted_.load(std::memory_order_relaxed); }
  // How many times record() has been called with a usable time.
  int samples() const { return samples_.load(std::memory_order_relaxed); }
  double clock_seconds() const { return clock_seconds_; }

 private:
  static bool one_in_sample_every() {
    // xorshift32 per thread: no shared counter written on every launch.
    thread_local std::uint32_t state = 0x9E3779B9u;
    std::uint32_t x = state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    state = x;
    return (x * 0x9E3779B9u) >> 26 == 0;  // top 6 bits: one in 64
  }
  static_assert(kSampleEvery == 64, "one_in_sample_every() draws 6 bits");

  std::atomic<double> cost_{-1.0};
  std::atomic<int> samples_{0};
  std::atomic<bool> suspect_{false};
  std::atomic<bool> trusted_{false};
  std::atomic<bool> warmed_{false};  // sample() has run the variant's first iteration
  const double clock_seconds_;
  std::mutex mutex_;      // serializes record()
  double outlier_ = 0.0;  // under mutex_: the unconfirmed outlier's cost
};

}  // namespace tack::backends::cpu
