// The asynchronous waits: tack::sync_async, Device::synchronize_async and
// Array::to_host_async on every backend (skipped, with the reason, where one
// is unavailable), and, on a test backend whose marker the test opens by hand,
// what only a controlled wait shows: the caller keeps running, the wait runs in
// a "tack-wait" thread, a launch's error arrives through the future.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "runtime/memory/access.hpp"
#include "runtime/waits/wait_marker.hpp"
#include "support/host_test_backend.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace tack::lang;
using namespace std::chrono_literals;

namespace {

int count_wait_threads() {
  int n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name == "tack-wait") ++n;
  }
  return n;
}

// ---- every backend ------------------------------------------------------------

class AsyncWait : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      dev_ = tack::device(GetParam());
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "backend '" << GetParam() << "' is unavailable here: " << e.what();
    }
  }
  const tack::Device& dev() const { return dev_; }

 private:
  tack::Device dev_;
};

tack::Kernel inc_kernel() {
  return tack::kernel("async_inc", [](Array a) { parallel_for(a.size(), [&](Index i) { a[i] = a[i] + 1; }); });
}
tack::Kernel step_kernel() {
  return tack::kernel("async_step",
                      [](Array a, Scalar s) { parallel_for(a.size(), [&](Index i) { a[i] = a[i] * 3 + s; }); });
}

TEST_P(AsyncWait, FillLaunchLaunchThenToHostAsync) {
  auto step = step_kernel();
  auto inc = inc_kernel();
  tack::Array a = dev().zeros(tack::DType::I32, {1000});
  a.fill(5);
  step(a, std::int32_t{2});  // 17
  inc(a);                    // 18
  std::future<std::vector<std::int32_t>> f = a.to_host_async<std::int32_t>();
  EXPECT_EQ(f.get(), std::vector<std::int32_t>(1000, 18));
  // A second round on the same array: a fill after the first future's mark.
  a.fill(-1);
  step(a, std::int32_t{4});  // 1
  EXPECT_EQ(a.to_host_async<std::int32_t>().get(), std::vector<std::int32_t>(1000, 1));
}

TEST_P(AsyncWait, EachQueuedLaunchKeepsItsOwnScalar) {
  auto step = step_kernel();
  const std::int64_t n = 777;
  std::vector<std::int32_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<std::int32_t>(i % 7);
  tack::Array a = dev().from_host(host);
  for (std::int32_t s = 1; s <= 12; ++s) {
    step(a, s);
    for (auto& v : host) v = v * 3 + s;
  }
  EXPECT_EQ(a.to_host_async<std::int32_t>().get(), host);
}

TEST_P(AsyncWait, SyncAsyncAndSynchronizeAsyncAfterManyLaunches) {
  auto inc = inc_kernel();
  tack::Array a = dev().zeros(tack::DType::I32, {4096});
  tack::Array b = dev().zeros(tack::DType::I32, {64});
  for (int r = 0; r < 200; ++r) inc(a);
  std::future<void> all = tack::sync_async();
  for (int r = 0; r < 50; ++r) inc(b);
  std::future<void> one = dev().synchronize_async();
  ASSERT_NO_THROW(all.get());
  ASSERT_NO_THROW(one.get());
  EXPECT_EQ(a.to_host<std::int32_t>(), std::vector<std::int32_t>(4096, 200));
  EXPECT_EQ(b.to_host<std::int32_t>(), std::vector<std::int32_t>(64, 50));
  // Nothing queued: still a future, and a ready one soon.
  EXPECT_EQ(tack::sync_async().wait_for(30s), std::future_status::ready);
}

TEST_P(AsyncWait, TheMarkCoversAtLeastTheLaunchesBeforeIt) {
  auto inc = inc_kernel();
  tack::Array a = dev().zeros(tack::DType::I32, {2048});
  inc(a);
  std::future<std::vector<std::int32_t>> f = a.to_host_async<std::int32_t>();
  // Ready already: the wait was inline (cpu, interp), so it cannot include the launches below.
  const bool ready_at_call = f.wait_for(0s) == std::future_status::ready;
  for (int r = 0; r < 20; ++r) inc(a);
  std::vector<std::int32_t> got = f.get();
  ASSERT_EQ(got.size(), 2048u);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_GE(got[i], 1) << "at " << i << ": the launch before the call is missing";
    ASSERT_LE(got[i], 21) << "at " << i;
    if (ready_at_call) ASSERT_EQ(got[i], 1) << "at " << i << ": a later launch is in a future that was ready";
  }
  EXPECT_EQ(a.to_host<std::int32_t>(), std::vector<std::int32_t>(2048, 21));
}

TEST_P(AsyncWait, TheFutureKeepsItsArrayAlive) {
  auto step = step_kernel();
  std::future<std::vector<std::int32_t>> f;
  {
    tack::Array temp = dev().zeros(tack::DType::I32, {300});
    step(temp, std::int32_t{9});
    f = temp.to_host_async<std::int32_t>();
  }  // the caller's handle is gone before the wait
  EXPECT_EQ(f.get(), std::vector<std::int32_t>(300, 9));
}

TEST_P(AsyncWait, ArgumentErrorsAreRaisedAtTheCall) {
  tack::Array a = dev().zeros(tack::DType::I32, {8});
  EXPECT_THROW((void)a.to_host_async<float>(), tack::TypeError);
  EXPECT_THROW((void)tack::Array().to_host_async<float>(), tack::InvalidArgument);
}

TEST_P(AsyncWait, DebugIndexErrorArrivesAtTheLaunchOrThroughTheFuture) {
  // Debug launches on today's backends wait and raise at the call (docs/semantics.md §4); a
  // backend that queues them may raise at the next wait instead, which for an async wait is the future.
  auto oob = tack::kernel("async_oob",
                          [](Array out, Array in) { parallel_for(out.size(), [&](Index i) { out[i] = in[i + 1]; }); });
  tack::set_debug(true);
  tack::Array in = dev().zeros(tack::DType::F32, {16});
  tack::Array out = dev().zeros(tack::DType::F32, {16});
  std::string message;
  try {
    oob(out, in);
    std::future<std::vector<float>> f = out.to_host_async<float>();
    f.get();
  } catch (const tack::IndexError& e) {
    message = e.what();
  }
  tack::set_debug(false);
  EXPECT_NE(message.find("kernel 'async_oob'"), std::string::npos) << "got: '" << message << "'";
}

TEST_P(AsyncWait, ManyFuturesFromFourThreads) {
  auto affine = tack::kernel("async_affine", [](Array y, Array x, Scalar a, Scalar b) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + b; });
  });
  const int threads = 4, rounds = 25;
  const std::int64_t n = 1000;
  std::vector<std::int32_t> hx(n);
  for (std::int64_t i = 0; i < n; ++i) hx[i] = static_cast<std::int32_t>(i % 100);
  std::vector<int> mismatches(threads, 0), failures(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        tack::Array x = dev().from_host(hx);
        std::vector<std::future<std::vector<std::int32_t>>> futures;
        std::vector<std::future<void>> syncs;
        for (int r = 0; r < rounds; ++r) {
          tack::Array y = dev().zeros(tack::DType::I32, {n});  // dropped at once: the future holds it
          affine(y, x, std::int32_t{t * 100 + r}, std::int32_t{-t - 7 * r});
          futures.push_back(y.to_host_async<std::int32_t>());
          if (r % 5 == 0) syncs.push_back(r % 10 ? dev().synchronize_async() : tack::sync_async());
        }
        for (int r = 0; r < rounds; ++r) {
          std::vector<std::int32_t> got = futures[r].get();
          for (std::int64_t i = 0; i < n; ++i)
            if (got[i] != (t * 100 + r) * hx[i] + (-t - 7 * r)) ++mismatches[t];
        }
        for (auto& s : syncs) s.get();
      } catch (const std::exception& e) {
        ++failures[t];
        std::printf("thread %d: %s\n", t, e.what());
      }
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  }
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(Backends, AsyncWait, ::testing::ValuesIn(tack::backend_names()), param_name);

// ---- a backend whose waits the test controls --------------------------------------

// What the gated markers share with the test: a gate, and where the waits ran.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;
  bool fail = false;  // the wait raises a launch's error once open
  int waiting = 0;
  std::vector<std::string> thread_names;
  std::vector<std::thread::id> thread_ids;

  void release() {
    {
      std::lock_guard lock(mutex);
      open = true;
    }
    changed.notify_all();
  }
  bool wait_for_waiters(int n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 30s, [&] { return waiting >= n; });
  }
};

class GatedMarker final : public tack::runtime::WaitMarker {
 public:
  explicit GatedMarker(std::shared_ptr<Gate> gate) : gate_(std::move(gate)) {}
  void wait() override {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    std::unique_lock lock(gate_->mutex);
    gate_->thread_names.emplace_back(name);
    gate_->thread_ids.push_back(std::this_thread::get_id());
    ++gate_->waiting;
    gate_->changed.notify_all();
    gate_->changed.wait(lock, [&] { return gate_->open; });
    if (gate_->fail) throw tack::BackendError("gated: the launch failed on the device");
  }

 private:
  std::shared_ptr<Gate> gate_;
};

// Host memory; a marker per wait when `gated`, else none and a synchronize() that may fail.
class GatedBackend final : public tack_test::HostTestBackend {
 public:
  GatedBackend(std::shared_ptr<Gate> gate, bool gated)
      : HostTestBackend(tack_test::host_test_capabilities("gated", {tack::DType::I32})),
        gate_(std::move(gate)),
        gated_(gated) {}
  void synchronize() override {
    if (gate_->fail) throw tack::BackendError("gated: the launch failed on the device");
  }
  std::unique_ptr<tack::runtime::WaitMarker> async_marker() override {
    ++markers;
    return gated_ ? std::make_unique<GatedMarker>(gate_) : nullptr;
  }
  std::atomic<int> markers{0};

 private:
  std::shared_ptr<Gate> gate_;
  bool gated_;
};

TEST(AsyncWaitPool, TheCallerRunsWhileATackWaitThreadWaits) {
  auto gate = std::make_shared<Gate>();
  auto backend = std::make_shared<GatedBackend>(gate, true);
  tack::Device dev(backend);
  std::future<void> f = dev.synchronize_async();
  ASSERT_TRUE(gate->wait_for_waiters(1)) << "the wait never started";
  EXPECT_EQ(f.wait_for(50ms), std::future_status::timeout) << "ready before the mark was reached";
  EXPECT_EQ(count_wait_threads(), 4) << "the pool is four threads named tack-wait";
  gate->release();
  f.get();
  EXPECT_EQ(backend->markers.load(), 1);
  ASSERT_EQ(gate->thread_names.size(), 1u);
  EXPECT_EQ(gate->thread_names[0], "tack-wait");
  EXPECT_NE(gate->thread_ids[0], std::this_thread::get_id());
}

TEST(AsyncWaitPool, ToHostAsyncReadsAfterTheMarkAndHoldsTheArray) {
  auto gate = std::make_shared<Gate>();
  tack::Device dev(std::make_shared<GatedBackend>(gate, true));
  std::future<std::vector<std::int32_t>> f;
  std::weak_ptr<tack::runtime::ArrayStorage> storage;
  {
    tack::Array a = dev.from_host(std::vector<std::int32_t>{1, 2, 3});
    storage = tack::detail::Access::storage(a);
    f = a.to_host_async<std::int32_t>();
  }
  ASSERT_TRUE(gate->wait_for_waiters(1));
  EXPECT_FALSE(storage.expired()) << "the array was freed while its read was pending";
  EXPECT_EQ(f.wait_for(0s), std::future_status::timeout);
  gate->release();
  EXPECT_EQ(f.get(), (std::vector<std::int32_t>{1, 2, 3}));
}

TEST(AsyncWaitPool, ALaunchErrorArrivesThroughTheFuture) {
  auto gate = std::make_shared<Gate>();
  gate->fail = true;
  tack::Device dev(std::make_shared<GatedBackend>(gate, true));
  tack::Array a = dev.zeros(tack::DType::I32, {4});
  std::future<void> s = dev.synchronize_async();  // no throw at the call
  std::future<std::vector<std::int32_t>> r = a.to_host_async<std::int32_t>();
  ASSERT_TRUE(gate->wait_for_waiters(2));
  gate->release();
  EXPECT_THROW(s.get(), tack::BackendError);
  try {
    r.get();
    ADD_FAILURE() << "to_host_async's future gave values after a failed wait";
  } catch (const tack::Error& e) {
    EXPECT_NE(std::string(e.what()).find("gated: the launch failed"), std::string::npos) << e.what();
  }
}

TEST(AsyncWaitPool, WithoutAMarkerTheWaitIsInlineAndItsErrorStillInTheFuture) {
  auto gate = std::make_shared<Gate>();
  tack::Device dev(std::make_shared<GatedBackend>(gate, false));
  tack::Array a = dev.from_host(std::vector<std::int32_t>{4, 5});
  std::future<std::vector<std::int32_t>> r = a.to_host_async<std::int32_t>();
  ASSERT_EQ(r.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(r.get(), (std::vector<std::int32_t>{4, 5}));
  gate->fail = true;
  std::future<void> s;
  ASSERT_NO_THROW(s = dev.synchronize_async());
  ASSERT_EQ(s.wait_for(0s), std::future_status::ready);
  EXPECT_THROW(s.get(), tack::BackendError);
  EXPECT_TRUE(gate->thread_names.empty());
}

TEST(AsyncWaitPool, AnEmptyDeviceIsReadyAtOnce) {
  std::future<void> f = tack::Device().synchronize_async();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_NO_THROW(f.get());
}

}  // namespace
