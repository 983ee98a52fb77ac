// The tack-wait pool and the futures of the asynchronous waits.
#include "runtime/waits/async_wait.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/kernels/print_capture.hpp"

#include <tack/array.hpp>
#include <tack/device.hpp>

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace tack::runtime {

WaitMarker::~WaitMarker() = default;

namespace {

// Four threads: enough that one long wait (a device running a long kernel)
// does not hold up the waits on other devices, few enough to cost nothing idle.
class WaitPool {
 public:
  static constexpr int kThreads = 4;

  static WaitPool& get() {
    static WaitPool pool;  // destroyed at exit, before the registry's devices
    return pool;
  }

  void submit(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

  ~WaitPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    // The queued tasks still run: each owns a promise someone may be waiting on.
    for (std::thread& t : threads_) t.join();
  }

 private:
  WaitPool() {
    threads_.reserve(kThreads);
    for (int i = 0; i < kThreads; ++i) threads_.emplace_back([this] { work(); });
  }

  void work() {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "tack-wait");
#elif defined(__APPLE__)
    pthread_setname_np("tack-wait");
#endif
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      try {
        task();
      } catch (...) {
        // Tasks deliver their errors through their promises; nothing is left to tell.
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

void run_in_wait_thread(std::function<void()> task) { WaitPool::get().submit(std::move(task)); }

Mark take_mark(const std::vector<std::shared_ptr<Backend>>& backends) {
  Mark mark;
  for (const auto& b : backends) {
    if (!b) continue;
    try {
      if (auto m = b->async_marker()) {
        mark.markers.push_back(std::move(m));
        mark.backends.push_back(b);
      } else {
        // Launches of a backend without a marker ran before they returned; a
        // worker would read its memory while the caller's next launch writes it.
        b->synchronize();
      }
    } catch (...) {
      if (!mark.error) mark.error = std::current_exception();
    }
  }
  return mark;
}

void after_mark(Mark mark, std::function<void(std::exception_ptr)> then) {
  if (mark.markers.empty()) {
    std::exception_ptr error = mark.error;
    try {
      flush_prints();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    then(error);
    return;
  }
  auto shared = std::make_shared<Mark>(std::move(mark));
  run_in_wait_thread([shared, then = std::move(then)] {
    std::exception_ptr error = shared->error;
    // Every marker is waited for, even after a failure, so none is dropped
    // while its device may still use the memory it holds.
    for (auto& m : shared->markers) {
      try {
        m->wait();
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    shared->markers.clear();
    try {
      flush_prints();  // the launches' lines are out before the future is ready
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    then(error);
  });
}

std::future<void> wait_async(const std::vector<std::shared_ptr<Backend>>& backends) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> out = done->get_future();
  after_mark(take_mark(backends), [done](std::exception_ptr error) {
    if (error)
      done->set_exception(error);
    else
      done->set_value();
  });
  return out;
}

}  // namespace tack::runtime
