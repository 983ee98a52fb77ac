// The CPU backend's persistent thread pool: threads - 1 workers plus the thread
// that calls run(), a static schedule of even contiguous chunks, and no
// allocation, lock or std::function on the launch path (docs/cpu-threading.md).
#pragma once

#include "support/no_copy.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tack::backends::cpu {

class ThreadPool : support::NoCopy {
 public:
  // A pool of threads - 1 workers, started by the first run() that has more
  // than one part (tack::BackendError there if the system refuses a thread);
  // tack::InvalidArgument unless threads >= 1.
  explicit ThreadPool(int threads);
  // Stops and joins the workers. No run() may be in progress.
  ~ThreadPool();

  int threads() const { return threads_; }

  using ChunkFn = void (*)(void* context, std::int64_t begin, std::int64_t end);

  // Runs fn over [0, count) in contiguous chunks [begin, end) across all threads
  // (the caller too) and returns when every chunk is done. Same as
  // run_range(0, count, min_chunk, fn, context).
  void run(std::int64_t count, std::int64_t min_chunk, ChunkFn fn, void* context) {
    run_range(0, count, min_chunk, fn, context);
  }

  // Runs fn over [begin, end) (end - begin must not overflow; nothing runs when
  // end <= begin). Static schedule: the range is split evenly into
  // parts = min(threads(), (end - begin) / min_chunk) contiguous chunks (at least
  // one; min_chunk < 1 counts as 1), their sizes differing by at most one, each
  // at least min_chunk iterations unless the whole range is shorter. Chunk i goes
  // to participant i, the caller taking chunk 0 and worker i chunk i, so the
  // same launch shape puts the same block on the same thread every time
  // (first-touch page placement and hardware prefetch streams stay put). With
  // one part, fn runs on the caller with no other thread involved.
  //
  // Concurrent callers: one run() holds the pool at a time; a caller that finds
  // it busy does not wait but runs its whole range serially on its own thread
  // (it is a core already, and waiting would idle it; a chunk that itself calls
  // run() on the same pool therefore runs serially instead of deadlocking). A
  // process forked after the pool started runs everything serially (the child
  // has no workers).
  //
  // An exception thrown by fn, on any thread, is captured and rethrown here
  // after every chunk has finished: the caller's own if its chunk threw, else
  // the first one a worker threw. The others are dropped.
  void run_range(std::int64_t begin, std::int64_t end, std::int64_t min_chunk, ChunkFn fn, void* context);

  // Seconds that a run() of threads() chunks of one empty iteration each takes
  // (the fan-out overhead with workers awake): the median of 9 runs, measured
  // at the first call (not at construction: a program that never fans out never
  // pays for it). 0 for a one-thread pool. While the pool is busy or another
  // thread measures, it answers a provisional 20 us and measures later.
  double fanout_seconds() const;

 private:
  // run_range's body; false (nothing run) when the range is one part, the pool
  // is busy or the process forked.
  bool try_run(std::int64_t begin, std::int64_t end, std::int64_t min_chunk, ChunkFn fn, void* context);
  void start_workers();
  void worker_main(int index);
  std::uint32_t wait_for_job(std::uint32_t seen);
  void wait_for_workers();
  void finish_chunk();
  void stop_workers();
  template <class Pred>
  bool spin_until(Pred done) const;

  const int threads_;
  mutable double fanout_seconds_ = 0;  // written once, before fanout_measured_
  mutable std::atomic<bool> fanout_measured_{false};
  mutable std::mutex fanout_mutex_;
  bool started_ = false;               // under busy_: the workers run
  std::int64_t spin_ns_ = 0;           // how long a waiting thread spins before it sleeps
  std::uint32_t fork_generation_ = 0;  // the process's fork count when the pool started

  // The job. Written by the thread holding busy_, before it publishes job_; read
  // by the workers that take part, which the job cannot finish without.
  alignas(64) std::atomic<bool> busy_{false};
  std::uint32_t sequence_ = 0;  // guarded by busy_
  ChunkFn fn_ = nullptr;
  void* context_ = nullptr;
  std::int64_t begin_ = 0;
  std::int64_t count_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> job_{0};       // sequence << 32 | parts
  std::atomic<std::uint32_t> epoch_{0};     // the sequence again: the word workers sleep on
  std::atomic<std::uint32_t> sleepers_{0};  // workers asleep (or about to be) on epoch_

  // Completion, written by the workers.
  alignas(64) std::atomic<std::uint32_t> remaining_{0};  // worker chunks not yet done
  std::atomic<std::uint32_t> caller_sleeping_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;  // the first worker exception; written by whoever sets failed_

  alignas(64) std::vector<std::thread> workers_;
};

// The process's pool for that thread count, created on first use and never
// destroyed (so a kernel launched from a static destructor still finds it).
// Thread-safe; a repeat call with the same count costs an atomic load.
ThreadPool& global_pool(int threads);

}  // namespace tack::backends::cpu
