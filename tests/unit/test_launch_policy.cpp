// The CPU launch policy's decisions, from injected timings: serial while the
// estimated serial time is under K times the fan-out overhead, fan-out above
// it, never on one thread; the estimate leans to fast samples, ignores a single
// slow outlier and believes a confirmed one; sampling is young, then sparse.
#include <gtest/gtest.h>

#include "support/pool_threads.hpp"

#include "backends/cpu/launch_policy.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using tack::backends::cpu::LaunchPolicy;
using tack::backends::cpu::ThreadPool;

// Injected clock: a read costs 25 ns, so a timing of 200 ns or more is trusted.
constexpr double kClock = 25e-9;
constexpr double kFanout = 5e-6;  // injected fan-out overhead: K * 5 us = 20 us
constexpr double kNs = 1e-9;

TEST(LaunchPolicy, BeforeAnyEstimate) {
  LaunchPolicy p(kClock);
  EXPECT_LT(p.cost_per_iteration(), 0);
  EXPECT_FALSE(p.trusted());
  EXPECT_TRUE(p.wants_sample());
  EXPECT_EQ(p.probe_size(1000000), LaunchPolicy::kFirstProbe);
  EXPECT_EQ(p.probe_size(0), 0);
  EXPECT_EQ(p.probe_size(-4), 0);
  // Without an estimate: serial for small launches, fan-out for large ones.
  EXPECT_FALSE(p.fan_out(10, 4, kFanout));
  EXPECT_FALSE(p.fan_out(LaunchPolicy::kNoEstimateCount, 4, kFanout));
  EXPECT_TRUE(p.fan_out(LaunchPolicy::kNoEstimateCount + 1, 4, kFanout));
}

TEST(LaunchPolicy, CheapVariantIsSerialWhenSmallAndFansOutWhenLarge) {
  LaunchPolicy p(kClock);
  EXPECT_TRUE(p.record(1000, 1000 * kNs));  // 1 ns an iteration, 1 us: trusted
  EXPECT_TRUE(p.trusted());
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 1 * kNs);
  // Threshold: count * 1 ns > 4 * 5 us, i.e. count > 20000.
  EXPECT_FALSE(p.fan_out(1, 4, kFanout));
  EXPECT_FALSE(p.fan_out(1000, 4, kFanout));
  EXPECT_FALSE(p.fan_out(19000, 4, kFanout));
  EXPECT_TRUE(p.fan_out(21000, 4, kFanout));
  EXPECT_TRUE(p.fan_out(100000000, 4, kFanout));
  // A costlier fan-out moves the threshold up.
  EXPECT_FALSE(p.fan_out(21000, 4, 10 * kFanout));
  EXPECT_TRUE(p.fan_out(210000, 4, 10 * kFanout));
}

TEST(LaunchPolicy, ExpensiveVariantFansOutAtSmallCounts) {
  LaunchPolicy p(kClock);
  EXPECT_TRUE(p.record(1, 1e-3));  // 1 ms an iteration
  EXPECT_TRUE(p.fan_out(2, 4, kFanout));
  EXPECT_TRUE(p.fan_out(3, 2, kFanout));
  EXPECT_FALSE(p.fan_out(1, 4, kFanout)) << "one iteration cannot be split";
  EXPECT_EQ(p.probe_size(1000), 1);  // one iteration is already a trusted timing
}

TEST(LaunchPolicy, SingleThreadNeverFansOut) {
  LaunchPolicy p(kClock);
  EXPECT_FALSE(p.fan_out(std::int64_t{1} << 40, 1, kFanout));  // no estimate yet
  p.record(1, 1e-3);
  for (std::int64_t count : {std::int64_t{2}, std::int64_t{1000}, std::int64_t{1} << 40})
    EXPECT_FALSE(p.fan_out(count, 1, kFanout)) << count;
  ThreadPool one(1);
  EXPECT_FALSE(p.fan_out(std::int64_t{1} << 40, one));
}

TEST(LaunchPolicy, DecidesWithARealPool) {
  ThreadPool pool(2);
  LaunchPolicy p(kClock);
  p.record(1000, 1000 * kNs);
  EXPECT_TRUE(p.fan_out(std::int64_t{1} << 40, pool));  // 1000 s of work
  EXPECT_FALSE(p.fan_out(1, pool));
}

// A launch too small for any pool to pay for is kept serial without asking the
// pool its fan-out cost, whose first ask measures it (and starts the workers).
TEST(LaunchPolicy, TinyLaunchesDoNotMeasureThePool) {
  const int before = tack_test::pool_threads_running();
  ThreadPool pool(2);
  LaunchPolicy p(1e-9);
  p.record(16, 16 * 10e-9);  // 10 ns an iteration
  ASSERT_GT(p.cost_per_iteration(), 0.0);
  EXPECT_FALSE(p.fan_out(16, pool));
  EXPECT_FALSE(p.fan_out(100, pool));  // 1 us of work: under 4 x the 1 us floor
  EXPECT_EQ(tack_test::pool_threads_running(), before) << "the pool was measured (its worker started)";
  EXPECT_TRUE(p.fan_out(std::int64_t{1} << 30, pool));  // 10 s of work: asks, and fans out
  EXPECT_EQ(tack_test::pool_threads_running(), before + 1);
}

// A fresh variant's first iteration pays for cold caches and page faults; it
// runs untimed, so a tiny first launch (a cached program's first call) is not
// mistaken for an expensive one and does not fan out (starting the pool).
// The decision is asked of a pool with a fixed 100 us fan-out cost rather than
// of a real one: the probes time single iterations on the real clock, and a
// real pool's first ask happens once any probe looks over 4 us, which a
// preempted probe under a sanitizer on a busy 2-core machine can (CI saw it).
TEST(LaunchPolicy, TheFirstIterationOfAVariantIsNotTimed) {
  LaunchPolicy p;  // the real clock
  struct ColdFirst {
    std::vector<int> hits = std::vector<int>(16, 0);
    std::vector<std::int64_t> call_begins;
    static void run(void* c, std::int64_t b, std::int64_t e) {
      auto* self = static_cast<ColdFirst*>(c);
      self->call_begins.push_back(b);
      for (std::int64_t i = b; i < e; ++i) {
        if (i == 0) {  // 5 ms: fresh code's first run, exaggerated far past any probe's noise
          const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
          while (std::chrono::steady_clock::now() < until) {
          }
        }
        self->hits[static_cast<std::size_t>(i)] += 1;
      }
    }
  } cold;
  const std::int64_t done = p.sample(16, ColdFirst::run, &cold);
  ASSERT_GE(cold.call_begins.size(), 2u) << "iteration 0 ran in a call of its own, then at least one probe";
  EXPECT_EQ(cold.call_begins[0], 0);
  EXPECT_EQ(cold.call_begins[1], 1) << "iteration 0 ran alone, ahead of the timed probes";
  if (done < 16) ColdFirst::run(&cold, done, 16);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(cold.hits[static_cast<std::size_t>(i)], 1) << i;
  EXPECT_GT(p.samples(), 0);
  EXPECT_LT(p.cost_per_iteration(), 500e-6) << "iteration 0's 5 ms was taken for the kernel's cost";
  // A 2 ms fan-out holds 15 iterations serial up to the 500 us bound above (a probe preempted under a sanitizer
  // on a busy 2-core machine measured 26-500 us and fanned out against 100 us: CI saw it), and fans them out at
  // iteration 0's 5 ms.
  EXPECT_FALSE(p.fan_out(15, 2, 2e-3)) << "15 iterations of a cheap kernel fan out, as if each cost 5 ms";

  // Only a variant's first sample skips an iteration: a later one times every probe it runs.
  struct Counted {
    int calls = 0;
    static void run(void* c, std::int64_t, std::int64_t) { ++static_cast<Counted*>(c)->calls; }
  } counted;
  const int samples_before = p.samples();
  p.sample(16, Counted::run, &counted);
  EXPECT_EQ(p.samples() - samples_before, counted.calls);
}

TEST(LaunchPolicy, ShortTimingsOnlyBoundTheCostFromAbove) {
  LaunchPolicy p(kClock);
  EXPECT_FALSE(p.record(10, 100 * kNs));  // 100 ns < 8 clock reads: an upper bound
  EXPECT_FALSE(p.trusted());
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 10 * kNs);
  EXPECT_FALSE(p.record(10, 50 * kNs));  // a lower bound is kept
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 5 * kNs);
  EXPECT_FALSE(p.record(10, 150 * kNs));  // a higher one cannot raise it
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 5 * kNs);
  // Probes grow to reach a trusted timing: 32 clock reads at <= 5 ns an iteration.
  EXPECT_NEAR(p.probe_size(1000000), 160, 1);
  // The first trusted sample replaces the bound, up or down.
  EXPECT_TRUE(p.record(1000, 2000 * kNs));
  EXPECT_TRUE(p.trusted());
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 2 * kNs);
  // After that a short timing can still lower it, never raise it.
  p.record(10, 190 * kNs);
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 2 * kNs);
  p.record(10, 10 * kNs);
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 1 * kNs);
}

TEST(LaunchPolicy, LeansToFastSamples) {
  LaunchPolicy p(kClock);
  p.record(1000, 1000 * kNs);  // 1 ns
  p.record(1000, 2000 * kNs);  // slower: up an eighth of the way
  EXPECT_NEAR(p.cost_per_iteration(), 1.125 * kNs, 1e-15);
  p.record(1000, 500 * kNs);  // faster: down half of the way
  EXPECT_NEAR(p.cost_per_iteration(), 0.8125 * kNs, 1e-15);
  p.record(1000000, 50000 * kNs);  // 0.05 ns, over 10x faster: at once
  EXPECT_NEAR(p.cost_per_iteration(), 0.05 * kNs, 1e-15);
  // Many 2x-slower samples converge up, not past them.
  for (int i = 0; i < 100; ++i) p.record(10000, 1000 * kNs);  // 0.1 ns
  EXPECT_NEAR(p.cost_per_iteration(), 0.1 * kNs, 1e-15);
  EXPECT_LE(p.cost_per_iteration(), 0.1 * kNs);
}

TEST(LaunchPolicy, IgnoresOneOutlierAndBelievesAConfirmedOne) {
  LaunchPolicy p(kClock);
  for (int i = 0; i < LaunchPolicy::kYoungSamples; ++i) p.record(1000, 1000 * kNs);
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 1 * kNs);

  p.record(1000, 50000 * kNs);  // 50x: a preempted run, probably
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 1 * kNs);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(p.wants_sample()) << "asks at once for a confirming sample";
  p.record(1000, 1000 * kNs);  // it was noise
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 1 * kNs);

  p.record(1000, 50000 * kNs);  // 50x, twice in a row: the cost changed
  p.record(1000, 40000 * kNs);
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 40 * kNs);
  EXPECT_TRUE(p.fan_out(1000, 4, kFanout));  // 40 us > 20 us
}

TEST(LaunchPolicy, SamplesYoungThenOneInSixtyFour) {
  LaunchPolicy p(kClock);
  for (int i = 0; i < LaunchPolicy::kYoungSamples; ++i) {
    EXPECT_TRUE(p.wants_sample()) << i;
    p.record(1000, 1000 * kNs);
  }
  EXPECT_EQ(p.samples(), LaunchPolicy::kYoungSamples);
  int asked = 0;
  constexpr int kCalls = 64000;
  for (int i = 0; i < kCalls; ++i) asked += p.wants_sample() ? 1 : 0;
  EXPECT_GT(asked, kCalls / 64 / 2);
  EXPECT_LT(asked, kCalls / 64 * 2);
}

TEST(LaunchPolicy, IgnoresUnusableTimings) {
  LaunchPolicy p(kClock);
  p.record(1000, 1000 * kNs);
  for (auto [count, seconds] : {std::pair<std::int64_t, double>{0, 1e-6},
                                {-5, 1e-6},
                                {1000, 0.0},
                                {1000, -1e-6},
                                {1000, std::numeric_limits<double>::quiet_NaN()},
                                {1000, std::numeric_limits<double>::infinity()}}) {
    EXPECT_FALSE(p.record(count, seconds));
  }
  EXPECT_EQ(p.samples(), 1);
  EXPECT_DOUBLE_EQ(p.cost_per_iteration(), 1 * kNs);
}

TEST(LaunchPolicy, ProbeSizeFollowsTheEstimate) {
  LaunchPolicy p(kClock);
  p.record(1000, 1000 * kNs);  // 1 ns: 32 reads of 25 ns = 800 iterations
  EXPECT_NEAR(p.probe_size(1000000), 800, 1);
  EXPECT_EQ(p.probe_size(100), 100);
  p.record(1, 1e-3);  // an outlier, then confirmed: 1 ms
  p.record(1, 1e-3);
  EXPECT_EQ(p.probe_size(1000000), 1);
}

struct Visits {
  std::vector<int> hits;
};

void visit(void* context, std::int64_t begin, std::int64_t end) {
  auto* v = static_cast<Visits*>(context);
  for (std::int64_t i = begin; i < end; ++i) v->hits[static_cast<std::size_t>(i)] += 1;
}

TEST(LaunchPolicy, SampleRunsALeadingPrefixOnce) {
  LaunchPolicy p;  // the real clock
  EXPECT_GT(p.clock_seconds(), 0.0);
  EXPECT_LT(p.clock_seconds(), 1e-3);
  Visits v{std::vector<int>(1000000, 0)};
  std::int64_t done = p.sample(1000000, visit, &v);
  ASSERT_GE(done, 1);
  ASSERT_LE(done, 1000000);
  for (std::int64_t i = 0; i < 1000000; ++i) ASSERT_EQ(v.hits[static_cast<std::size_t>(i)], i < done ? 1 : 0) << i;
  EXPECT_GE(p.samples(), 1);
  EXPECT_GT(p.cost_per_iteration(), 0.0);

  Visits small{std::vector<int>(3, 0)};
  EXPECT_LE(p.sample(3, visit, &small), 3);
  EXPECT_EQ(p.sample(0, visit, &small), 0);
}

TEST(LaunchPolicy, SampleLetsExceptionsThrough) {
  LaunchPolicy p(kClock);
  auto boom = [](void*, std::int64_t, std::int64_t) { throw std::runtime_error("boom"); };
  EXPECT_THROW(p.sample(100, boom, nullptr), std::runtime_error);
}

// The launch sequence the header documents, end to end on a real pool.
TEST(LaunchPolicy, DocumentedLaunchSequenceVisitsEverything) {
  ThreadPool pool(3);
  LaunchPolicy p;
  for (std::int64_t count : {std::int64_t{1}, std::int64_t{17}, std::int64_t{5000}, std::int64_t{2000000}}) {
    for (int r = 0; r < 20; ++r) {
      Visits v{std::vector<int>(static_cast<std::size_t>(count), 0)};
      std::int64_t done = 0;
      if (pool.threads() > 1 && p.wants_sample()) done = p.sample(count, visit, &v);
      if (done < count) {
        if (p.fan_out(count - done, pool))
          pool.run_range(done, count, 1, visit, &v);
        else
          visit(&v, done, count);
      }
      for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(v.hits[static_cast<std::size_t>(i)], 1) << count << " " << i;
    }
  }
}

TEST(LaunchPolicy, ManyHostThreadsShareOnePolicy) {
  LaunchPolicy p(kClock);
  std::vector<std::thread> threads;
  std::vector<int> decisions(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&p, &decisions, t] {
      for (int i = 0; i < 5000; ++i) {
        std::int64_t count = 1000 + (i * 37) % 100000;
        if (p.fan_out(count, 4, kFanout)) ++decisions[static_cast<std::size_t>(t)];
        if (p.wants_sample()) p.record(count, static_cast<double>(count) * kNs);
        (void)p.probe_size(count);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_NEAR(p.cost_per_iteration(), 1 * kNs, 1e-15);
  EXPECT_TRUE(p.trusted());
}

}  // namespace
