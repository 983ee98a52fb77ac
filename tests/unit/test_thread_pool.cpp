// The CPU backend's thread pool and thread count: every iteration runs exactly
// once, in even contiguous chunks that respect min_chunk; exceptions reach the
// caller; concurrent and nested callers are served; destruction joins; and
// TACK_CPU_THREADS is parsed strictly. No timing assertions: speed is measured
// in bench/.
#include <gtest/gtest.h>

#include <tack/error.hpp>
#include "support/pool_threads.hpp"
#include "support/scoped_env.hpp"

#include "backends/cpu/core_count.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace {

using tack::backends::cpu::ThreadPool;
namespace cpu = tack::backends::cpu;

// Each chunk adds 1 to hits[i] for its own i. Plain ints: if two chunks ever
// overlapped, the count would show it, and ThreadSanitizer would report a race.
void count_hits(void* context, std::int64_t begin, std::int64_t end) {
  auto& hits = *static_cast<std::vector<int>*>(context);
  for (std::int64_t i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)] += 1;
}

// The first index not visited exactly once, or -1.
std::int64_t first_bad(const std::vector<int>& hits, std::int64_t begin = 0) {
  for (std::size_t i = static_cast<std::size_t>(begin); i < hits.size(); ++i)
    if (hits[i] != 1) return static_cast<std::int64_t>(i);
  return -1;
}

struct SumContext {
  std::atomic<std::int64_t> sum{0};
};

void add_indices(void* context, std::int64_t begin, std::int64_t end) {
  std::int64_t s = 0;
  for (std::int64_t i = begin; i < end; ++i) s += i;
  static_cast<SumContext*>(context)->sum.fetch_add(s, std::memory_order_relaxed);
}

std::int64_t expected_sum(std::int64_t n) { return n * (n - 1) / 2; }

struct Chunk {
  std::int64_t begin, end;
  std::thread::id thread;
};

struct ChunkLog {
  std::mutex mutex;
  std::vector<Chunk> chunks;
};

void log_chunk(void* context, std::int64_t begin, std::int64_t end) {
  auto* log = static_cast<ChunkLog*>(context);
  std::lock_guard<std::mutex> lock(log->mutex);
  log->chunks.push_back({begin, end, std::this_thread::get_id()});
}

std::vector<Chunk> chunks_of(ThreadPool& pool, std::int64_t begin, std::int64_t end, std::int64_t min_chunk) {
  ChunkLog log;
  pool.run_range(begin, end, min_chunk, log_chunk, &log);
  std::sort(log.chunks.begin(), log.chunks.end(), [](const Chunk& a, const Chunk& b) { return a.begin < b.begin; });
  return log.chunks;
}

// The chunks tile [begin, end) in order, their sizes differing by at most one.
void expect_even_tiling(const std::vector<Chunk>& chunks, std::int64_t begin, std::int64_t end) {
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front().begin, begin);
  EXPECT_EQ(chunks.back().end, end);
  std::int64_t smallest = end - begin, largest = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0) {
      EXPECT_EQ(chunks[i].begin, chunks[i - 1].end);
    }
    smallest = std::min(smallest, chunks[i].end - chunks[i].begin);
    largest = std::max(largest, chunks[i].end - chunks[i].begin);
  }
  EXPECT_LE(largest - smallest, 1);
}

TEST(ThreadPool, VisitsEveryIterationExactlyOnce) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{threads - 1}, std::int64_t{threads},
                               std::int64_t{threads + 1}, std::int64_t{1000}, std::int64_t{1000000}}) {
      std::vector<int> hits(static_cast<std::size_t>(count), 0);
      pool.run(count, 1, count_hits, &hits);
      EXPECT_EQ(first_bad(hits), -1) << "threads " << threads << ", count " << count;
      SumContext sum;
      pool.run(count, 1, add_indices, &sum);
      EXPECT_EQ(sum.sum.load(), expected_sum(count)) << "threads " << threads << ", count " << count;
    }
  }
}

TEST(ThreadPool, RunsManyLaunchesBackToBack) {
  ThreadPool pool(3);
  for (int r = 0; r < 2000; ++r) {
    std::int64_t count = 1 + (r * 7919) % 5000;
    SumContext sum;
    pool.run(count, 1, add_indices, &sum);
    ASSERT_EQ(sum.sum.load(), expected_sum(count)) << "launch " << r;
  }
}

TEST(ThreadPool, RunRangeCoversAnOffsetRange) {
  ThreadPool pool(3);
  std::vector<int> hits(1100, 0);
  pool.run_range(100, 1100, 1, count_hits, &hits);
  EXPECT_EQ(std::count(hits.begin(), hits.begin() + 100, 0), 100);
  EXPECT_EQ(first_bad(hits, 100), -1);
  std::vector<int> before = hits;
  pool.run_range(105, 105, 1, count_hits, &hits);  // empty
  pool.run_range(107, 103, 1, count_hits, &hits);  // reversed: empty
  EXPECT_EQ(hits, before);
}

TEST(ThreadPool, SplitsEvenlyOneChunkPerThread) {
  ThreadPool pool(4);
  auto chunks = chunks_of(pool, 0, 1000, 1);
  ASSERT_EQ(chunks.size(), 4u);
  expect_even_tiling(chunks, 0, 1000);
  std::set<std::thread::id> threads;
  for (const Chunk& c : chunks) threads.insert(c.thread);
  EXPECT_EQ(threads.size(), 4u);
  EXPECT_EQ(chunks.front().thread, std::this_thread::get_id()) << "the caller runs the first chunk";

  chunks = chunks_of(pool, 0, 10, 1);  // 3, 3, 2, 2
  ASSERT_EQ(chunks.size(), 4u);
  expect_even_tiling(chunks, 0, 10);
  EXPECT_EQ(chunks[0].end - chunks[0].begin, 3);

  chunks = chunks_of(pool, 0, 3, 1);  // fewer iterations than threads: one each
  ASSERT_EQ(chunks.size(), 3u);
  expect_even_tiling(chunks, 0, 3);

  chunks = chunks_of(pool, 40, 1040, 1);
  ASSERT_EQ(chunks.size(), 4u);
  expect_even_tiling(chunks, 40, 1040);
}

TEST(ThreadPool, RespectsMinChunk) {
  ThreadPool pool(4);
  auto chunks = chunks_of(pool, 0, 1000, 300);  // 3 parts of >= 300
  ASSERT_EQ(chunks.size(), 3u);
  expect_even_tiling(chunks, 0, 1000);
  for (const Chunk& c : chunks) EXPECT_GE(c.end - c.begin, 300);

  chunks = chunks_of(pool, 0, 1000, 250);  // exactly 4 parts of 250
  ASSERT_EQ(chunks.size(), 4u);
  for (const Chunk& c : chunks) EXPECT_EQ(c.end - c.begin, 250);

  chunks = chunks_of(pool, 0, 1000, 501);  // one part: serial, on the caller
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].begin, 0);
  EXPECT_EQ(chunks[0].end, 1000);
  EXPECT_EQ(chunks[0].thread, std::this_thread::get_id());

  chunks = chunks_of(pool, 0, 10, 1000);  // shorter than min_chunk: one part
  ASSERT_EQ(chunks.size(), 1u);

  for (std::int64_t min_chunk : {std::int64_t{0}, std::int64_t{-5}}) {  // counts as 1
    chunks = chunks_of(pool, 0, 8, min_chunk);
    ASSERT_EQ(chunks.size(), 4u);
    expect_even_tiling(chunks, 0, 8);
  }
}

struct ThrowContext {
  std::vector<int> hits;
  std::int64_t throw_at;  // the chunk starting here throws
  bool tack_error = false;
};

void throw_in_one_chunk(void* context, std::int64_t begin, std::int64_t end) {
  auto* c = static_cast<ThrowContext*>(context);
  if (begin == c->throw_at || c->throw_at < 0) {
    if (c->tack_error) throw tack::InvalidArgument("chunk " + std::to_string(begin));
    throw std::runtime_error("chunk " + std::to_string(begin));
  }
  for (std::int64_t i = begin; i < end; ++i) c->hits[static_cast<std::size_t>(i)] += 1;
}

TEST(ThreadPool, WorkerExceptionReachesTheCallerAfterEveryChunk) {
  ThreadPool pool(4);
  ThrowContext c{std::vector<int>(1000, 0), 500};  // chunks 0, 250, 500, 750: 500 is a worker's
  try {
    pool.run(1000, 1, throw_in_one_chunk, &c);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "chunk 500");
  }
  // Every other chunk finished before run() threw.
  for (std::int64_t i = 0; i < 1000; ++i)
    ASSERT_EQ(c.hits[static_cast<std::size_t>(i)], (i >= 500 && i < 750) ? 0 : 1) << i;

  // The pool is still usable, and the error does not come back.
  SumContext sum;
  pool.run(1000, 1, add_indices, &sum);
  EXPECT_EQ(sum.sum.load(), expected_sum(1000));
}

TEST(ThreadPool, CallerExceptionWaitsForTheWorkers) {
  ThreadPool pool(4);
  ThrowContext c{std::vector<int>(1000, 0), 0, true};  // the caller's own chunk, a tack error
  EXPECT_THROW(pool.run(1000, 1, throw_in_one_chunk, &c), tack::InvalidArgument);
  for (std::int64_t i = 0; i < 1000; ++i) ASSERT_EQ(c.hits[static_cast<std::size_t>(i)], i < 250 ? 0 : 1) << i;
}

TEST(ThreadPool, EveryChunkThrowingGivesOneException) {
  ThreadPool pool(4);
  ThrowContext c{std::vector<int>(1000, 0), -1};
  for (int r = 0; r < 20; ++r) EXPECT_THROW(pool.run(1000, 1, throw_in_one_chunk, &c), std::runtime_error);
  SumContext sum;
  pool.run(100, 1, add_indices, &sum);
  EXPECT_EQ(sum.sum.load(), expected_sum(100));
}

TEST(ThreadPool, SerialPathExceptionPropagates) {
  ThreadPool pool(1);
  ThrowContext c{std::vector<int>(10, 0), 0};
  EXPECT_THROW(pool.run(10, 1, throw_in_one_chunk, &c), std::runtime_error);
}

TEST(ThreadPool, ConcurrentCallersEachGetTheirResult) {
  ThreadPool pool(3);
  constexpr int kCallers = 8, kRuns = 40;
  std::vector<int> wrong(kCallers, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        std::int64_t count = 20000 + 1000 * t + r;
        SumContext sum;
        pool.run(count, 1, add_indices, &sum);
        if (sum.sum.load() != expected_sum(count)) ++wrong[static_cast<std::size_t>(t)];
        std::vector<int> hits(static_cast<std::size_t>(count), 0);
        pool.run(count, 64, count_hits, &hits);
        if (first_bad(hits) != -1) ++wrong[static_cast<std::size_t>(t)];
      }
    });
  }
  for (std::thread& c : callers) c.join();
  for (int t = 0; t < kCallers; ++t) EXPECT_EQ(wrong[static_cast<std::size_t>(t)], 0) << "caller " << t;
}

struct Nested {
  ThreadPool* pool;
  std::vector<int> hits;
};

void nested_chunk(void* context, std::int64_t begin, std::int64_t end) {
  auto* n = static_cast<Nested*>(context);
  // Runs over [begin * 10, end * 10) through the same, busy, pool: serially, no deadlock.
  struct Inner {
    std::vector<int>* hits;
  } inner{&n->hits};
  n->pool->run_range(
      begin * 10, end * 10, 1,
      [](void* ctx, std::int64_t b, std::int64_t e) { count_hits(static_cast<Inner*>(ctx)->hits, b, e); }, &inner);
}

TEST(ThreadPool, NestedRunOnTheSamePoolRunsSerially) {
  ThreadPool pool(3);
  Nested n{&pool, std::vector<int>(3000, 0)};
  pool.run(300, 1, nested_chunk, &n);
  EXPECT_EQ(first_bad(n.hits), -1);
}

// Destruction joins: a worker's thread_local destructors run before join() returns.
std::atomic<int> g_workers_exited{0};
struct ExitCounter {
  bool armed = false;
  ~ExitCounter() {
    if (armed) g_workers_exited.fetch_add(1);
  }
};
thread_local ExitCounter t_exit_counter;

void arm_exit_counter(void* context, std::int64_t, std::int64_t) {
  if (std::this_thread::get_id() != *static_cast<std::thread::id*>(context)) t_exit_counter.armed = true;
}

TEST(ThreadPool, DestructionJoinsTheWorkers) {
  g_workers_exited = 0;
  std::thread::id caller = std::this_thread::get_id();
  {
    ThreadPool pool(4);
    pool.run(4, 1, arm_exit_counter, &caller);  // one iteration per thread: every worker takes part
  }
  EXPECT_EQ(g_workers_exited.load(), 3);
}

TEST(ThreadPool, CreateAndDestroyRepeatedly) {
  for (int r = 0; r < 20; ++r) {
    ThreadPool pool(1 + r % 4);
    if (r % 2) {
      SumContext sum;
      pool.run(1000, 1, add_indices, &sum);
      ASSERT_EQ(sum.sum.load(), expected_sum(1000));
    }
    if (r % 5 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers asleep
  }
}

TEST(ThreadPool, RejectsZeroThreads) {
  EXPECT_THROW(ThreadPool(0), tack::InvalidArgument);
  EXPECT_THROW(ThreadPool(-3), tack::InvalidArgument);
}

TEST(ThreadPool, FanoutSecondsIsMeasured) {
  ThreadPool one(1), three(3);
  EXPECT_TRUE(std::isfinite(one.fanout_seconds()));
  EXPECT_GE(one.fanout_seconds(), 0.0);
  EXPECT_TRUE(std::isfinite(three.fanout_seconds()));
  EXPECT_GT(three.fanout_seconds(), 0.0);
}

// A program whose launches all run serially never starts the workers; the
// first run with more than one part starts them all.
TEST(ThreadPool, WorkersStartAtTheFirstRunThatFansOut) {
  const int before = tack_test::pool_threads_running();
  ThreadPool pool(3);
  EXPECT_EQ(tack_test::pool_threads_running(), before) << "a new pool starts no thread";
  SumContext one;
  pool.run(1, 1, add_indices, &one);        // one part: the caller alone
  pool.run(1000, 1000, add_indices, &one);  // min_chunk makes it one part
  EXPECT_EQ(tack_test::pool_threads_running(), before);
  SumContext sum;
  pool.run(3000, 1, add_indices, &sum);
  ASSERT_EQ(sum.sum.load(), expected_sum(3000));
  EXPECT_EQ(tack_test::pool_threads_running(), before + 2);
}

TEST(ThreadPool, FanoutSecondsIsMeasuredAtTheFirstAskNotAtConstruction) {
  const int before = tack_test::pool_threads_running();
  ThreadPool pool(2);
  EXPECT_EQ(tack_test::pool_threads_running(), before);
  const double first = pool.fanout_seconds();  // starts the worker to measure
  EXPECT_GT(first, 0.0);
  EXPECT_EQ(tack_test::pool_threads_running(), before + 1);
  EXPECT_EQ(pool.fanout_seconds(), first) << "measured once";
}

TEST(ThreadPool, GlobalPoolIsOnePerThreadCount) {
  ThreadPool& a = cpu::global_pool(2);
  ThreadPool& b = cpu::global_pool(3);
  EXPECT_EQ(&cpu::global_pool(2), &a);
  EXPECT_EQ(&cpu::global_pool(3), &b);
  EXPECT_NE(&a, &b);
  EXPECT_EQ(a.threads(), 2);
  EXPECT_EQ(b.threads(), 3);
  SumContext sum;
  a.run(12345, 1, add_indices, &sum);
  EXPECT_EQ(sum.sum.load(), expected_sum(12345));
}

#if defined(__linux__)
TEST(ThreadPool, ForkedChildRunsSerially) {
  auto pool = std::make_unique<ThreadPool>(3);
  std::vector<int> hits(1000, 0);
  ChunkLog log;
  log.chunks.reserve(16);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a hang shows as a signal, not a stuck test
    pool->run(1000, 1, count_hits, &hits);
    pool->run(1000, 1, log_chunk, &log);
    bool ok = first_bad(hits) == -1 && log.chunks.size() == 1;
    pool.reset();  // no workers to join in the child
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "child killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent's pool is untouched.
  pool->run(1000, 1, count_hits, &hits);
  EXPECT_EQ(first_bad(hits), -1);
}
#endif

// TACK_CPU_THREADS: set for one test, restored after.
using tack_test::ScopedEnv;

TEST(CpuThreads, CoreCountsArePositive) {
  int logical = cpu::logical_cpu_count();
  int physical = cpu::physical_core_count();
  EXPECT_GE(logical, 1);
  EXPECT_GE(physical, 1);
  EXPECT_LE(physical, logical);
  EXPECT_LE(physical, cpu::kMaxCpuThreads);
}

TEST(CpuThreads, UnsetOrEmptyMeansPhysicalCores) {
  {
    ScopedEnv env("TACK_CPU_THREADS", nullptr);
    EXPECT_EQ(cpu::default_cpu_threads(), cpu::physical_core_count());
  }
  {
    ScopedEnv env("TACK_CPU_THREADS", "");
    EXPECT_EQ(cpu::default_cpu_threads(), cpu::physical_core_count());
  }
}

TEST(CpuThreads, ValidValues) {
  for (auto [text, n] :
       {std::pair{"1", 1}, std::pair{"3", 3}, std::pair{"64", 64}, std::pair{"1024", 1024}, std::pair{"007", 7}}) {
    ScopedEnv env("TACK_CPU_THREADS", text);
    EXPECT_EQ(cpu::default_cpu_threads(), n) << text;
  }
}

TEST(CpuThreads, BadValuesThrowNamingTheVariableAndValue) {
  for (const char* text : {"0", "-2", "abc", "4x", " 4", "4 ", "2.5", "+3", "1025", "99999999999999999999999"}) {
    ScopedEnv env("TACK_CPU_THREADS", text);
    try {
      cpu::default_cpu_threads();
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const tack::InvalidArgument& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("TACK_CPU_THREADS"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("\"") + text + "\""), std::string::npos) << what;
    }
  }
}

}  // namespace
