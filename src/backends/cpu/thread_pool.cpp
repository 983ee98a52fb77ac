// The pool's protocol. One run() at a time holds busy_, writes the job (fn,
// context, range) into plain fields, then publishes it: job_ (sequence and
// number of parts, in one 64-bit word, so a worker reads both consistently),
// then epoch_ (the sequence alone: a 32-bit word that std::atomic::wait can
// sleep on). A worker that wakes reads job_; if its index is below parts it
// runs its chunk and counts remaining_ down, and the job cannot finish without
// it, so the plain fields stay put while it reads them. A worker whose index is
// not below parts reads nothing else and waits again; such a worker may skip
// jobs it had no part in, and never one it had. Waiting threads (workers for a
// job, the caller for the workers) spin for at most kSpinNanoseconds, yielding
// the CPU between bursts, and then sleep; a thread wakes another only when that
// one has said it sleeps (sleepers_, caller_sleeping_: each side stores its own
// flag, then loads the other side's word, all seq_cst, so at least one of them
// sees the other).
#include "backends/cpu/thread_pool.hpp"

#include "backends/cpu/core_count.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <system_error>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace tack::backends::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// How long a waiting thread spins before it sleeps. Long enough to cover the
// host-side gap between back-to-back launches (a few microseconds), so they
// pay no wake-up; short, because a spinning worker takes a core from whoever
// else wants it. No spinning at all when threads outnumber the CPUs.
constexpr std::int64_t kSpinNanoseconds = 20'000;
// Spinning yields the CPU this often. A caller and its worker that share a CPU
// (a loaded machine) hand it to each other at each yield: on a 2-core KVM
// guest a launch took 50 us there without yielding (a whole spin, then a sleep
// and a wake), 7 us yielding every 64 pauses (1.7 us on Zen 3), 5 us yielding
// every 0.5 us (two context switches), and 0.2 to 0.7 us with the worker on a
// CPU of its own either way. Timed, not counted: pause takes 10 to 140 cycles
// across CPUs.
constexpr std::int64_t kBurstNanoseconds = 500;
constexpr int kFanoutRepetitions = 9;
// What fanout_seconds() answers while another thread measures it: a little
// above what a warm two-to-eight-thread pool takes (2 to 10 us), so a decision
// made on it errs towards running serially.
constexpr double kProvisionalFanoutSeconds = 20e-6;

// Counts forks, in the child: a forked child has none of the parent's workers.
std::atomic<std::uint32_t> g_fork_generation{0};

void count_fork_in_child() { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

void watch_forks() {
#if defined(__unix__) || defined(__APPLE__)
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, count_fork_in_child); });
#endif
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// The first iteration (relative to the range's start) of part i of parts.
inline std::int64_t part_begin(std::int64_t count, std::int64_t parts, std::int64_t i) {
  return i * (count / parts) + std::min(i, count % parts);
}

void name_this_thread(int index) {
#if defined(__linux__)
  char name[16];
  std::snprintf(name, sizeof(name), "tack-cpu-%d", index);
  pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
  char name[16];
  std::snprintf(name, sizeof(name), "tack-cpu-%d", index);
  pthread_setname_np(name);
#else
  (void)index;
#endif
}

void empty_chunk(void*, std::int64_t, std::int64_t) {}

}  // namespace

template <class Pred>
bool ThreadPool::spin_until(Pred done) const {
  if (done()) return true;
  if (spin_ns_ <= 0) return false;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::nanoseconds(spin_ns_);
  auto next_yield = start + std::chrono::nanoseconds(kBurstNanoseconds);
  for (;;) {
    for (int i = 0; i < 8; ++i) {
      cpu_relax();
      if (done()) return true;
    }
    const auto now = Clock::now();
    if (now >= deadline) return done();
    if (now >= next_yield) {
      // The thread we wait for may be queued on this very CPU (a loaded
      // machine, or one the scheduler has not balanced yet): let it run.
      std::this_thread::yield();
      next_yield = Clock::now() + std::chrono::nanoseconds(kBurstNanoseconds);
    }
  }
}

ThreadPool::ThreadPool(int threads) : threads_(threads) {
  if (threads < 1) throw InvalidArgument("a CPU thread pool needs at least 1 thread, not " + std::to_string(threads));
  watch_forks();
  fork_generation_ = g_fork_generation.load(std::memory_order_relaxed);
  spin_ns_ = threads <= logical_cpu_count() ? kSpinNanoseconds : 0;
  workers_.reserve(static_cast<std::size_t>(threads - 1));
}

// Under busy_: the first run with more than one part starts the workers, so a
// program whose launches all run serially (tiny arrays, a cached program's
// first calls) never pays for threads it does not use.
void ThreadPool::start_workers() {
  try {
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker_main(i); });
  } catch (const std::system_error& e) {
    std::size_t started = workers_.size();
    stop_workers();
    stop_.store(false, std::memory_order_relaxed);
    busy_.store(false, std::memory_order_release);
    throw BackendError("cannot start CPU worker thread " + std::to_string(started + 1) + " of " +
                       std::to_string(threads_ - 1) + ": " + e.what());
  }
  started_ = true;
}

double ThreadPool::fanout_seconds() const {
  if (fanout_measured_.load(std::memory_order_acquire)) return fanout_seconds_;
  if (threads_ == 1) return 0.0;
  // One thread measures; another that asks meanwhile (or a chunk of a running
  // job) gets the provisional figure rather than waiting or measuring a pool it
  // cannot have to itself.
  std::unique_lock lock(fanout_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return kProvisionalFanoutSeconds;
  if (fanout_measured_.load(std::memory_order_relaxed)) return fanout_seconds_;
  auto* self = const_cast<ThreadPool*>(this);
  // A run of one empty iteration per thread, back to back; the first wakes the workers.
  if (!self->try_run(0, threads_, 1, empty_chunk, nullptr)) return kProvisionalFanoutSeconds;
  double samples[kFanoutRepetitions];
  for (double& s : samples) {
    auto t0 = Clock::now();
    if (!self->try_run(0, threads_, 1, empty_chunk, nullptr)) return kProvisionalFanoutSeconds;
    s = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  std::nth_element(samples, samples + kFanoutRepetitions / 2, samples + kFanoutRepetitions);
  fanout_seconds_ = samples[kFanoutRepetitions / 2];
  fanout_measured_.store(true, std::memory_order_release);
  return fanout_seconds_;
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  stop_.store(true, std::memory_order_relaxed);
  ++sequence_;
  job_.store(static_cast<std::uint64_t>(sequence_) << 32, std::memory_order_release);
  epoch_.store(sequence_, std::memory_order_seq_cst);
  epoch_.notify_all();
  // In a forked child the workers do not exist: joining would wait forever.
  bool forked = g_fork_generation.load(std::memory_order_relaxed) != fork_generation_;
  for (std::thread& t : workers_) {
    if (forked)
      t.detach();
    else
      t.join();
  }
  workers_.clear();
}

void ThreadPool::run_range(std::int64_t begin, std::int64_t end, std::int64_t min_chunk, ChunkFn fn, void* context) {
  if (end <= begin) return;
  if (!try_run(begin, end, min_chunk, fn, context)) fn(context, begin, end);
}

bool ThreadPool::try_run(std::int64_t begin, std::int64_t end, std::int64_t min_chunk, ChunkFn fn, void* context) {
  const std::int64_t count = end - begin;
  if (min_chunk < 1) min_chunk = 1;
  const std::int64_t parts = std::min<std::int64_t>(threads_, count / min_chunk);
  if (parts <= 1 || g_fork_generation.load(std::memory_order_relaxed) != fork_generation_ ||
      busy_.load(std::memory_order_relaxed) || busy_.exchange(true, std::memory_order_acquire))
    return false;
  if (!started_) start_workers();

  fn_ = fn;
  context_ = context;
  begin_ = begin;
  count_ = count;
  remaining_.store(static_cast<std::uint32_t>(parts - 1), std::memory_order_relaxed);
  ++sequence_;
  job_.store(static_cast<std::uint64_t>(sequence_) << 32 | static_cast<std::uint64_t>(parts),
             std::memory_order_release);
  epoch_.store(sequence_, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) != 0) epoch_.notify_all();

  std::exception_ptr error;
  try {
    fn(context, begin, begin + part_begin(count, parts, 1));
  } catch (...) {
    error = std::current_exception();
  }
  wait_for_workers();
  if (failed_.load(std::memory_order_relaxed)) {
    if (!error) error = std::move(error_);
    error_ = nullptr;
    failed_.store(false, std::memory_order_relaxed);
  }
  busy_.store(false, std::memory_order_release);
  if (error) std::rethrow_exception(error);
  return true;
}

void ThreadPool::wait_for_workers() {
  if (spin_until([this] { return remaining_.load(std::memory_order_acquire) == 0; })) return;
  caller_sleeping_.store(1, std::memory_order_seq_cst);
  for (;;) {
    std::uint32_t left = remaining_.load(std::memory_order_seq_cst);
    if (left == 0) break;
    remaining_.wait(left, std::memory_order_seq_cst);
  }
  caller_sleeping_.store(0, std::memory_order_relaxed);
}

void ThreadPool::finish_chunk() {
  if (remaining_.fetch_sub(1, std::memory_order_seq_cst) == 1 && caller_sleeping_.load(std::memory_order_seq_cst) != 0)
    remaining_.notify_one();
}

std::uint32_t ThreadPool::wait_for_job(std::uint32_t seen) {
  std::uint32_t now = seen;
  if (spin_until([&] { return (now = epoch_.load(std::memory_order_acquire)) != seen; })) return now;
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  while ((now = epoch_.load(std::memory_order_seq_cst)) == seen) epoch_.wait(seen, std::memory_order_seq_cst);
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
  return now;
}

void ThreadPool::worker_main(int index) {
  name_this_thread(index);
  std::uint32_t epoch_seen = 0;
  std::uint32_t job_seen = 0;
  for (;;) {
    epoch_seen = wait_for_job(epoch_seen);
    const std::uint64_t job = job_.load(std::memory_order_acquire);
    const auto sequence = static_cast<std::uint32_t>(job >> 32);
    if (sequence == job_seen) continue;  // already done: job_ runs ahead of epoch_
    job_seen = sequence;
    if (stop_.load(std::memory_order_relaxed)) return;
    const auto parts = static_cast<std::int64_t>(job & 0xffffffffu);
    if (index >= parts) continue;
    const std::int64_t first = begin_ + part_begin(count_, parts, index);
    const std::int64_t last = begin_ + part_begin(count_, parts, index + 1);
    try {
      fn_(context_, first, last);
    } catch (...) {
      if (!failed_.exchange(true, std::memory_order_acq_rel)) error_ = std::current_exception();
    }
    finish_chunk();
  }
}

ThreadPool& global_pool(int threads) {
  static std::atomic<ThreadPool*> last{nullptr};
  ThreadPool* pool = last.load(std::memory_order_acquire);
  if (pool && pool->threads() == threads) return *pool;
  // Never destroyed: see the header.
  static std::mutex& mutex = *new std::mutex;
  static std::vector<ThreadPool*>& pools = *new std::vector<ThreadPool*>;
  std::lock_guard<std::mutex> lock(mutex);
  pool = nullptr;
  for (ThreadPool* p : pools)
    if (p->threads() == threads) pool = p;
  if (!pool) {
    pools.reserve(pools.size() + 1);
    pool = new ThreadPool(threads);
    pools.push_back(pool);
  }
  last.store(pool, std::memory_order_release);
  return *pool;
}

}  // namespace tack::backends::cpu
