// The level_zero backend through Tack's public API, over the stand-in loader
// (tests/support/fake_level_zero): what it asks the driver to do, in which
// order and with which values, on a machine without an Intel GPU. Kernels are
// compiled by libocloc for real (tests that launch are skipped without it) and
// recorded by the fake, never run, so these tests check launches, copies,
// fills, frees, waits and the module cache, not results.
//
// ctest sets TACK_LEVEL_ZERO_LIBRARY to the fake; run by hand, main's fallback
// below sets it to the fake this executable was built with.
#include "support/alloc_count.hpp"
#include "support/fake_driver.hpp"
#include "support/fake_level_zero/adopted_device.hpp"
#include "support/fake_level_zero/fake_level_zero.hpp"

#include "backends/level_zero/level_zero_driver.hpp"
#include "backends/level_zero/level_zero_kernel.hpp"
#include "backends/level_zero/level_zero_memory.hpp"
#include "backends/level_zero/ocloc_compile.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/waits/wait_deadline.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>

namespace {

using namespace tack::lang;
namespace ze = tack::backends::level_zero::driver;
namespace l0 = tack::backends::level_zero;

std::string entry(int i) { return fake_ze_log_entry(i); }
FakeZeOp op_at(int i) {
  FakeZeOp op{};
  EXPECT_TRUE(fake_ze_log_op(i, &op));
  return op;
}
std::vector<std::string> log_entries(int from = 0) {
  std::vector<std::string> out;
  for (int i = from; i < fake_ze_log_size(); ++i) out.push_back(entry(i));
  return out;
}
// The first log entry at or after `from` that starts with `what` (and writes `dst`, when given), else -1.
int find_entry(const std::string& what, int from = 0, const void* dst = nullptr) {
  for (int i = from; i < fake_ze_log_size(); ++i) {
    if (entry(i).rfind(what, 0) != 0) continue;
    if (dst && op_at(i).dst != dst) continue;
    return i;
  }
  return -1;
}
std::vector<FakeZeLaunch> launches() {
  std::vector<FakeZeLaunch> out;
  for (int i = 0; i < fake_ze_launch_count(); ++i) {
    FakeZeLaunch l{};
    fake_ze_launch(i, &l);
    out.push_back(l);
  }
  return out;
}
std::uint64_t arg_u64(const FakeZeLaunch& l, int i) {
  std::uint64_t v = 0;
  std::memcpy(&v, l.args[i], sizeof v);
  return v;
}
void* ptr_of(const tack::Array& a) { return l0::device_pointer(a); }

const tack::Kernel& saxpy() {
  static const tack::Kernel k = tack::kernel(
      "l0_saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}
const tack::Kernel& fill_n() {
  static const tack::Kernel k =
      tack::kernel("l0_fill_n", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i] = 7.0f; }); });
  return k;
}

class LevelZeroRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ze_reset();
    try {
      dev_ = tack::device("level_zero");
    } catch (const tack::BackendUnavailable& e) {
      FAIL() << "the fake loader should make level_zero available: " << e.what();
    }
  }
  void TearDown() override {
    EXPECT_STREQ(fake_ze_misuse(), "") << "the backend misused the driver";
    fake_ze_reset();
  }
  // Kernels need libocloc; the rest of the backend does not.
  void compile_or_skip(const std::function<void()>& first_launch) {
    try {
      first_launch();
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "libocloc is not available: " << e.what();
    }
  }
  tack::Device dev_;
};

TEST_F(LevelZeroRuntime, DeviceQueriesFeedTheCapabilities) {
  const tack::Capabilities& c = dev_.capabilities();
  EXPECT_EQ(c.name, "level_zero");
  EXPECT_TRUE(c.supports_f64) << "the fake reports fp64flags";
  EXPECT_TRUE(c.supports_atomic(tack::DType::I64)) << "and 64-bit atomics";
  EXPECT_TRUE(c.supports_workgroups);
  EXPECT_TRUE(c.supports_device_reductions);
  EXPECT_EQ(c.device_options, (std::vector<std::string>{"external_context", "external_device", "external_driver"}));
  EXPECT_EQ(tack::device("level_zero"), dev_) << "without options, one device for the process";

  fake_ze_set_module(0, 0);  // no fp64, no 64-bit atomics
  fake_ze_set_compute(128, 1024, 65535);
  tack::Device small = tack_test::fresh_level_zero_device();
  const tack::Capabilities& s = small.capabilities();
  EXPECT_FALSE(s.supports_f64) << "fp64flags == 0 removes f64";
  EXPECT_FALSE(s.supports(tack::DType::F64));
  EXPECT_TRUE(s.supports(tack::DType::I64));
  EXPECT_FALSE(s.supports_atomic(tack::DType::I64));
  EXPECT_FALSE(s.supports_workgroups) << "workgroup kernels need groups of 256";
  EXPECT_THROW(small.from_host(std::vector<double>{1.0}), tack::Error);
}

// Adopting another library's handles takes all three: each of the six partial combinations is an
// InvalidArgument naming the three options, and the driver is asked nothing for it.
TEST_F(LevelZeroRuntime, PartialExternalHandlesAreRefused) {
  const ze::Api& api = ze::api();
  std::uint32_t count = 1;
  ze::ze_driver_handle_t driver = nullptr;
  ze::ze_device_handle_t device = nullptr;
  api.zeDriverGet(&count, &driver);
  count = 1;
  api.zeDeviceGet(driver, &count, &device);
  auto h = [](void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(p)); };
  // Any non-null value will do for the context: a partial set is refused before a handle is used.
  const std::pair<const char*, std::int64_t> all[] = {
      {"external_driver", h(driver)}, {"external_device", h(device)}, {"external_context", h(driver)}};
  for (int mask = 1; mask < 7; ++mask) {
    tack::DeviceOptions options;
    std::string given;
    for (int b = 0; b < 3; ++b)
      if (mask & (1 << b)) {
        options[all[b].first] = all[b].second;
        given += std::string(given.empty() ? "" : " + ") + all[b].first;
      }
    SCOPED_TRACE(given);
    const int before = fake_ze_log_size();
    try {
      tack::device("level_zero", options);
      ADD_FAILURE() << "a partial set of external handles was accepted";
    } catch (const tack::InvalidArgument& e) {
      EXPECT_STREQ(e.what(),
                   "level_zero: adopting another library's handles needs all three options, 'external_driver', "
                   "'external_device' and 'external_context'");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an InvalidArgument: " << e.what();
    }
    EXPECT_EQ(log_entries(before), std::vector<std::string>{}) << "the driver was called for a refused set";
  }
}

TEST_F(LevelZeroRuntime, OneAsynchronousListOnTheComputeGroupElseASynchronousOne) {
  tack::Device d = tack_test::fresh_level_zero_device();
  EXPECT_GE(find_entry("list_async"), 0) << "API 1.6: an asynchronous immediate list";
  EXPECT_EQ(find_entry("list_sync_mode"), -1);
  fake_ze_reset();
  fake_ze_set_api_version((1u << 16) | 5u);  // before zeCommandListHostSynchronize
  tack::Device old = tack_test::fresh_level_zero_device();
  EXPECT_GE(find_entry("list_sync_mode"), 0) << "API 1.5: a synchronous list";
  tack::Array a = old.from_host(std::vector<float>(8, 1.0f));
  EXPECT_EQ(a.to_host<float>(), std::vector<float>(8, 1.0f));
  old.synchronize();
  EXPECT_EQ(fake_ze_count("zeCommandListHostSynchronize"), 0) << "a synchronous list is never waited for";
  EXPECT_EQ(find_entry("barrier", 0), find_entry("barrier_event", 0)) << "no ordering barriers on it";
}

TEST_F(LevelZeroRuntime, GroupSizeIsTheSmallestOf256AndTheDeviceLimits) {
  struct Case {
    std::uint32_t total, x, expect;
  };
  for (Case c : {Case{1024, 1024, 256}, Case{128, 1024, 128}, Case{1024, 64, 64}, Case{512, 200, 200}}) {
    fake_ze_reset();
    fake_ze_set_compute(c.total, c.x, 65535);
    tack::Device d = tack_test::fresh_level_zero_device();
    const std::int64_t n = 1000;
    tack::Array y = d.zeros(tack::DType::F32, {n});
    compile_or_skip([&] { fill_n()(y, n); });
    auto ls = launches();
    ASSERT_EQ(ls.size(), 1u);
    EXPECT_EQ(ls[0].group_size[0], c.expect) << c.total << " " << c.x;
    EXPECT_EQ(ls[0].groups[0], static_cast<std::uint32_t>((n + c.expect - 1) / c.expect));
    EXPECT_EQ(ls[0].groups[1] * ls[0].groups[2] * ls[0].group_size[1] * ls[0].group_size[2], 1u);
  }
}

TEST_F(LevelZeroRuntime, LaunchBeyondMaxGroupCountXIsRefused) {
  fake_ze_set_compute(1024, 1024, 4);
  tack::Device d = tack_test::fresh_level_zero_device();
  tack::Array y = d.zeros(tack::DType::F32, {4 * 256 + 1});
  compile_or_skip([&] { fill_n()(y, std::int64_t{4 * 256}); });
  ASSERT_EQ(fake_ze_launch_count(), 1);
  EXPECT_EQ(launches()[0].groups[0], 4u);
  try {
    fill_n()(y, std::int64_t{4 * 256 + 1});
    ADD_FAILURE() << "a launch of 5 groups on a device of 4 was accepted";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("l0_fill_n"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("maxGroupCountX"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fake_ze_launch_count(), 1) << "nothing launched for the refused call";
}

TEST_F(LevelZeroRuntime, LaunchArgumentsAndTheCount) {
  tack::Array x = dev_.from_host(std::vector<float>(300, 1.0f)), y = dev_.zeros(tack::DType::F32, {300});
  compile_or_skip([&] { saxpy()(y, x, 2.0f); });
  auto ls = launches();
  ASSERT_EQ(ls.size(), 1u);
  const FakeZeLaunch& l = ls[0];
  EXPECT_NE(std::string(l.name).find("saxpy"), std::string::npos) << l.name;
  ASSERT_GE(l.arg_count, 4) << "y, x, the f32 pack, __n__";
  EXPECT_EQ(arg_u64(l, 0), reinterpret_cast<std::uint64_t>(ptr_of(y)));
  EXPECT_EQ(arg_u64(l, 1), reinterpret_cast<std::uint64_t>(ptr_of(x)));
  EXPECT_EQ(l.arg_size[l.arg_count - 1], 8u) << "__n__ is a 64-bit long";
  EXPECT_EQ(arg_u64(l, l.arg_count - 1), 300u);
}

// DESIGN §5's warm path: once a variant is compiled and its arrays exist, a
// launch allocates nothing in Tack, on any thread, by new or malloc (the fake
// driver's own bookkeeping is left out).
TEST_F(LevelZeroRuntime, AWarmLaunchAllocatesNothing) {
  tack::Array x = dev_.from_host(std::vector<float>(300, 1.0f)), y = dev_.zeros(tack::DType::F32, {300});
  compile_or_skip([&] { saxpy()(y, x, 2.0f); });
  saxpy()(y, x, 1.0f);  // the variant's pack buffers and scratch are made by now
  ASSERT_EQ(alloc_count::self_check("tack_fake_level_zero"), "") << "the counter counts";
  const int allocations = alloc_count::count_in("tack_fake_level_zero", [&] { saxpy()(y, x, 0.5f); });
  EXPECT_EQ(allocations, 0) << "first allocation from " << alloc_count::first_caller();
}

TEST_F(LevelZeroRuntime, EachLaunchUploadsItsOwnScalarsFirst) {
  tack::Array x = dev_.zeros(tack::DType::F32, {512}), y = dev_.zeros(tack::DType::F32, {512});
  compile_or_skip([&] { saxpy()(y, x, 0.5f); });
  fake_ze_reset();
  for (int i = 1; i <= 4; ++i) saxpy()(y, x, static_cast<float>(i));
  auto ls = launches();
  ASSERT_EQ(ls.size(), 4u);
  int previous = -1;
  for (int i = 0; i < 4; ++i) {
    const void* pack = reinterpret_cast<const void*>(arg_u64(ls[i], 2));
    // The last upload to the pack before this launch, after the one before it, holds this launch's value.
    int upload = -1;
    for (int at = previous + 1; at < ls[i].log_index; ++at)
      if (entry(at) == "copy" && op_at(at).dst == pack) upload = at;
    ASSERT_GE(upload, 0) << "launch " << i << " has no pack upload before it";
    float a = 0;
    std::memcpy(&a, op_at(upload).payload, sizeof a);
    EXPECT_EQ(a, static_cast<float>(i + 1)) << "launch " << i;
    EXPECT_EQ(op_at(upload).src_kind, 1) << "a small upload comes from USM host memory";
    previous = ls[i].log_index;
  }
  EXPECT_EQ(find_entry("list_sync"), -1) << "launches return without waiting";
  EXPECT_EQ(find_entry("event_sync"), -1);
}

// The pack buffers and the kernel's argument state are shared: the launch lock keeps each thread's scalars,
// arguments and launch together.
TEST_F(LevelZeroRuntime, FourThreadsKeepTheirOwnScalarsAndArguments) {
  constexpr int kThreads = 4;
  std::vector<tack::Array> xs, ys;
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(dev_.zeros(tack::DType::F32, {256}));
    ys.push_back(dev_.zeros(tack::DType::F32, {256}));
  }
  compile_or_skip([&] { saxpy()(ys[0], xs[0], 0.25f); });
  fake_ze_reset();
  for (int round = 0; round < 20; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { saxpy()(ys[t], xs[t], static_cast<float>(t + 1)); });
    for (auto& th : threads) th.join();
  }
  auto ls = launches();
  ASSERT_EQ(ls.size(), 20u * kThreads);
  int previous = -1;
  for (const FakeZeLaunch& l : ls) {
    int t = -1;
    for (int i = 0; i < kThreads; ++i)
      if (arg_u64(l, 0) == reinterpret_cast<std::uint64_t>(ptr_of(ys[i]))) t = i;
    ASSERT_GE(t, 0) << "a launch on an unknown array";
    EXPECT_EQ(arg_u64(l, 1), reinterpret_cast<std::uint64_t>(ptr_of(xs[t]))) << "another thread's x";
    const void* pack = reinterpret_cast<const void*>(arg_u64(l, 2));
    int upload = -1;
    for (int at = previous + 1; at < l.log_index; ++at)
      if (entry(at) == "copy" && op_at(at).dst == pack) upload = at;
    ASSERT_GE(upload, 0);
    float a = 0;
    std::memcpy(&a, op_at(upload).payload, sizeof a);
    EXPECT_EQ(a, static_cast<float>(t + 1)) << "thread " << t << "'s launch reads another thread's scalars";
    previous = l.log_index;
  }
}

TEST_F(LevelZeroRuntime, EveryAppendIsFollowedByABarrier) {
  tack::Array x = dev_.from_host(std::vector<float>(64, 1.0f));
  tack::Array y = dev_.zeros(tack::DType::F32, {64});
  compile_or_skip([&] { saxpy()(y, x, 3.0f); });
  const std::vector<std::string> log = log_entries();
  int appends = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log[i] != "copy" && log[i] != "fill" && log[i].rfind("launch ", 0) != 0) continue;
    ++appends;
    ASSERT_LT(i + 1, log.size());
    EXPECT_EQ(log[i + 1], "barrier") << "entry " << i << " (" << log[i] << ") is not followed by a barrier";
  }
  EXPECT_GE(appends, 4);
}

TEST_F(LevelZeroRuntime, CopiesLaunchAndReadBackInOrder) {
  tack::Array x = dev_.from_host(std::vector<float>(1000, 1.0f));
  tack::Array y = dev_.from_host(std::vector<float>(1000, 2.0f));
  compile_or_skip([&] { saxpy()(y, x, 3.0f); });
  const int launch = find_entry("launch ");
  ASSERT_GE(launch, 0);
  EXPECT_LT(find_entry("copy", 0, ptr_of(x)), launch);
  EXPECT_LT(find_entry("copy", 0, ptr_of(y)), launch);
  EXPECT_EQ(find_entry("list_sync"), -1);
  std::vector<float> out = y.to_host<float>();
  EXPECT_EQ(out, std::vector<float>(1000, 2.0f)) << "the fake runs no kernel: y keeps what was uploaded";
  int read = -1;
  for (int i = launch; i < fake_ze_log_size(); ++i)
    if (entry(i) == "copy" && op_at(i).src == ptr_of(y)) read = i;
  ASSERT_GT(read, launch) << "the read is queued after the launch";
  const int mark = find_entry("barrier_event", read);
  ASSERT_GT(mark, read) << "then a marker";
  EXPECT_GT(find_entry("event_sync", mark), mark) << "whose event the host waits on";
}

TEST_F(LevelZeroRuntime, SmallCopiesAreStagedAndHeldUntilTheNextWait) {
  dev_.synchronize();
  fake_ze_reset();
  std::set<const void*> staged;
  std::vector<tack::Array> keep;
  for (int i = 0; i < 3; ++i) {
    keep.push_back(dev_.from_host(std::vector<float>(100, static_cast<float>(i))));
    const int at = find_entry("copy", 0, ptr_of(keep.back()));
    ASSERT_GE(at, 0);
    EXPECT_EQ(op_at(at).src_kind, 1) << "from USM host memory";
    staged.insert(op_at(at).src);
  }
  EXPECT_EQ(staged.size(), 3u) << "a staging block is held until the next wait, not reused";
  dev_.synchronize();
  EXPECT_GE(find_entry("list_sync"), 0);
  // The three blocks are back in the pool: three more small writes allocate no host memory.
  const int host_allocs = fake_ze_count("zeMemAllocHost");
  for (int i = 0; i < 3; ++i) keep.push_back(dev_.from_host(std::vector<float>(100, 9.0f)));
  EXPECT_EQ(fake_ze_count("zeMemAllocHost"), host_allocs) << "after the wait the pool hands its blocks out again";

  // Past 16 MiB the copy reads a private snapshot in pageable memory.
  const std::vector<float> big((std::size_t{17} << 20) / sizeof(float), 1.0f);
  tack::Array b = dev_.from_host(big);
  const int at = find_entry("copy", 0, ptr_of(b));
  ASSERT_GE(at, 0);
  EXPECT_EQ(op_at(at).src_kind, 0);
  EXPECT_NE(op_at(at).src, static_cast<const void*>(big.data())) << "a snapshot, not the caller's memory";
}

TEST_F(LevelZeroRuntime, HoldsPastTheirLimitWaitEarly) {
  tack::Array a = dev_.zeros(tack::DType::F32, {4});
  dev_.synchronize();
  fake_ze_reset();
  const std::vector<float> v(4, 1.0f);
  for (std::size_t i = 0; i < l0::Queue::kMaxHolds; ++i)
    tack::detail::Access::storage(a)->buffer->write(0, v.data(), sizeof(float) * 4);
  EXPECT_EQ(find_entry("list_sync"), -1) << "up to the limit, no wait";
  tack::detail::Access::storage(a)->buffer->write(0, v.data(), sizeof(float) * 4);
  EXPECT_GE(find_entry("list_sync"), 0) << "one hold past the limit waits and releases them";
}

TEST_F(LevelZeroRuntime, DroppedArraysAreFreedWithTheDeferredPolicy) {
  void* p = nullptr;
  {
    tack::Array a = dev_.from_host(std::vector<float>(32, 1.0f));
    p = ptr_of(a);
  }
  const int freed = find_entry("free_defer", 0, p);
  ASSERT_GE(freed, 0) << "zeMemFreeExt(DEFER_FREE)";
  EXPECT_EQ(find_entry("list_sync"), -1) << "a deferred free waits for nothing";

  fake_ze_set_free_policies_extension(0);
  tack::Device d = tack_test::fresh_level_zero_device();
  {
    tack::Array a = d.from_host(std::vector<float>(32, 1.0f));
    p = ptr_of(a);
  }
  const int plain = find_entry("free", 0, p);
  ASSERT_GE(plain, 0);
  EXPECT_EQ(entry(plain), "free");
  const int sync = find_entry("list_sync");
  ASSERT_GE(sync, 0);
  EXPECT_LT(sync, plain) << "without the extension a free waits for the list first";
}

TEST_F(LevelZeroRuntime, AsyncMarkerIsABarrierSignallingAnEvent) {
  tack::Array a = dev_.from_host(std::vector<float>(16, 1.0f));
  fake_ze_reset();
  dev_.synchronize_async().get();
  const int mark = find_entry("barrier_event");
  ASSERT_GE(mark, 0);
  EXPECT_GT(find_entry("event_sync", mark), mark);
  // Events are reset and reused, not made per wait.
  const int pools = fake_ze_count("zeEventPoolCreate");
  for (int i = 0; i < 40; ++i) dev_.synchronize_async().get();
  EXPECT_EQ(fake_ze_count("zeEventPoolCreate"), pools);
  EXPECT_GE(fake_ze_count("zeEventHostReset"), 40);
}

TEST_F(LevelZeroRuntime, FailedWaitRaisesBackendErrorNamingTheCall) {
  tack::Array y = dev_.from_host(std::vector<float>(16, 1.0f));
  fake_ze_fail("zeCommandListHostSynchronize", ze::ZE_RESULT_ERROR_DEVICE_LOST, 1);
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not raise";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("zeCommandListHostSynchronize"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ZE_RESULT_ERROR_DEVICE_LOST"), std::string::npos) << e.what();
  }
  fake_ze_fail("zeEventHostSynchronize", ze::ZE_RESULT_ERROR_DEVICE_LOST, 1);
  try {
    (void)y.to_host<float>();
    ADD_FAILURE() << "to_host did not raise";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("zeEventHostSynchronize"), std::string::npos) << e.what();
  }
  fake_ze_fail("zeCommandListHostSynchronize", ze::ZE_RESULT_ERROR_DEVICE_LOST, 1);
  EXPECT_THROW(tack::sync(), tack::BackendError);
  EXPECT_NO_THROW(dev_.synchronize()) << "the fake's fault is not sticky";
  EXPECT_EQ(y.to_host<float>(), std::vector<float>(16, 1.0f));
}

// The device runs out of memory mid-run (the driver refuses one allocation):
// BackendError naming the call and the size; the arrays made before keep their
// contents, and the next allocation works.
TEST_F(LevelZeroRuntime, OutOfMemoryMidRunKeepsEarlierArrays) {
  std::vector<float> a(1000), b(333);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * static_cast<float>(i);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = -static_cast<float>(i);
  tack::Array x = dev_.from_host(a), y = dev_.from_host(b);
  fake_ze_fail("zeMemAllocDevice", ze::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, 1);
  try {
    tack::Array z = dev_.empty(tack::DType::F32, {1 << 20});
    ADD_FAILURE() << "the refused allocation gave an array";
  } catch (const tack::BackendError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of device memory"), std::string::npos) << m;
    EXPECT_NE(m.find("zeMemAllocDevice"), std::string::npos) << "the call: " << m;
    EXPECT_NE(m.find(std::to_string(4 << 20) + " bytes"), std::string::npos) << "the size: " << m;
  }
  EXPECT_EQ(x.to_host<float>(), a);
  EXPECT_EQ(y.to_host<float>(), b);
  EXPECT_EQ(dev_.from_host(b).to_host<float>(), b) << "the fault is not sticky";
}

// TACK_WAIT_TIMEOUT_S (set through its test hook): Level Zero's waits take a timeout, so the driver gets
// it in nanoseconds (UINT64_MAX without one), and its ZE_RESULT_NOT_READY becomes BackendError naming
// the kernel last queued.
TEST_F(LevelZeroRuntime, WaitPastTheTimeoutNamesTheLastKernel) {
  tack::Array x = dev_.from_host(std::vector<float>(16, 1.0f)), y = dev_.from_host(std::vector<float>(16, 2.0f));
  compile_or_skip([&] { saxpy()(y, x, 2.0f); });
  dev_.synchronize();
  EXPECT_EQ(fake_ze_last_wait_timeout(), UINT64_MAX) << "without a timeout the wait is unbounded";
  struct Restore {
    ~Restore() { tack::runtime::set_wait_timeout_s(0); }
  } restore;
  tack::runtime::set_wait_timeout_s(0.25);
  saxpy()(y, x, 2.0f);
  fake_ze_fail("zeCommandListHostSynchronize", ze::ZE_RESULT_NOT_READY, 1);
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not time out";
  } catch (const tack::BackendError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("level_zero: a wait for the queued work did not finish within 0.25 s (TACK_WAIT_TIMEOUT_S)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("kernel 'l0_saxpy'"), std::string::npos) << m;
  }
  EXPECT_EQ(fake_ze_last_wait_timeout(), 250000000u);
  fake_ze_fail("zeEventHostSynchronize", ze::ZE_RESULT_NOT_READY, 1);
  try {
    (void)y.to_host<float>();
    ADD_FAILURE() << "to_host did not time out";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'l0_saxpy'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(dev_.synchronize()) << "once the work is done the same device waits normally";
}

TEST_F(LevelZeroRuntime, ModulesAreBuiltWithTheOpenCLOptions) {
  tack::Array y = dev_.zeros(tack::DType::F32, {16});
  compile_or_skip([&] { fill_n()(y, std::int64_t{16}); });
  EXPECT_STREQ(fake_ze_last_build_flags(), tack::backends::level_zero::kOclocOptions);
}

// A kernel no earlier process compiled: its constant is this run's clock.
tack::Kernel unique_kernel() {
  const float stamp = static_cast<float>(std::chrono::steady_clock::now().time_since_epoch().count() % 1000003);
  return tack::kernel("l0_unique", [stamp](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = stamp; }); });
}

TEST_F(LevelZeroRuntime, NativeBinaryCacheRoundTripAndRefusedBinaries) {
  if (!std::getenv("TACK_CACHE_DIR")) GTEST_SKIP() << "run through ctest (TACK_CACHE_DIR in the build tree)";
  tack::Kernel k = unique_kernel();
  const auto ocloc = l0::ocloc_compile_count(), natives = l0::native_load_count(), refused = l0::native_refused_count();
  {
    tack::Device a = tack_test::fresh_level_zero_device();
    tack::Array y = a.zeros(tack::DType::F32, {8});
    compile_or_skip([&] { k(y); });
  }
  EXPECT_EQ(l0::ocloc_compile_count(), ocloc + 1) << "a new kernel goes through ocloc";
  EXPECT_GE(find_entry("module_spirv"), 0);

  fake_ze_reset();
  {
    tack::Device b = tack_test::fresh_level_zero_device();  // a new backend: its variant cache is empty
    tack::Array y = b.zeros(tack::DType::F32, {8});
    k(y);
  }
  EXPECT_EQ(l0::ocloc_compile_count(), ocloc + 1) << "the second build loads from the disk cache";
  EXPECT_EQ(l0::native_load_count(), natives + 1) << "as the native binary";
  EXPECT_GE(find_entry("module_native"), 0);
  EXPECT_EQ(find_entry("module_spirv"), -1);

  fake_ze_reset();
  fake_ze_refuse_native_binaries(1);  // a new driver: the stored binary is refused
  {
    tack::Device c = tack_test::fresh_level_zero_device();
    tack::Array y = c.zeros(tack::DType::F32, {8});
    k(y);
  }
  EXPECT_EQ(l0::native_refused_count(), refused + 1) << "counted as native_refused";
  EXPECT_EQ(l0::ocloc_compile_count(), ocloc + 1) << "and loaded from the SPIR-V beside it, without ocloc";
  const int native = find_entry("module_native");
  ASSERT_GE(native, 0);
  EXPECT_GT(find_entry("module_spirv", native), native);
  EXPECT_EQ(fake_ze_launch_count(), 1);
}

TEST(LevelZeroArtifact, RoundTripAndKey) {
  const std::string spirv("\x03\x02\x23\x07rest\0of\nit", 14);
  const std::string native("FAKE-NATIVE\n\0\x01", 14);
  const l0::Artifact a{"my_kernel", spirv, native};
  const std::optional<l0::Artifact> back = l0::decode_artifact(l0::encode_artifact(a));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->entry, "my_kernel");
  EXPECT_EQ(back->spirv, spirv);
  EXPECT_EQ(back->native, native);
  const std::optional<l0::Artifact> no_native = l0::decode_artifact(l0::encode_artifact({"k", spirv, ""}));
  ASSERT_TRUE(no_native);
  EXPECT_TRUE(no_native->native.empty());
  std::string cut = l0::encode_artifact(a);
  cut.pop_back();
  EXPECT_FALSE(l0::decode_artifact(cut)) << "a truncated entry is malformed";
  EXPECT_FALSE(l0::decode_artifact("ENTRY:k\nSPIRV:x\nNATIVE:0\n"));
  EXPECT_FALSE(l0::decode_artifact(""));

  l0::DeviceInfo d;
  d.name = "Some GPU";
  d.device_id = 0x0bd5;
  d.ip_version = 0x030f0007;
  d.driver_version = 42;
  d.fp64_flags = 1;
  const tack::runtime::CacheKey key = l0::cache_key(d, "IR");
  for (const std::string& part :
       {std::string("Some GPU"), std::string("0x0bd5"), std::to_string(0x030f0007), std::string("f64=1")})
    EXPECT_NE(key.target.find(part), std::string::npos) << part << " missing from the target: " << key.target;
  EXPECT_NE(key.toolchain_version.find("driver 42"), std::string::npos) << key.toolchain_version;
  EXPECT_EQ(key.toolchain, "ocloc");
  EXPECT_EQ(key.options, tack::backends::level_zero::kOclocOptions);
  EXPECT_EQ(key.code, "IR");
  const std::string text = tack::runtime::key_text(key);
  l0::DeviceInfo other = d;
  other.ip_version = 0x030f0008;  // another stepping
  EXPECT_NE(tack::runtime::key_text(l0::cache_key(other, "IR")), text);
  other = d;
  other.fp64_flags = 0;
  EXPECT_NE(tack::runtime::key_text(l0::cache_key(other, "IR")), text);
  other = d;
  other.driver_version = 43;
  EXPECT_NE(tack::runtime::key_text(l0::cache_key(other, "IR")), text);
}

TEST_F(LevelZeroRuntime, SumRunsOnTheDeviceWithGroupsOf256) {
  tack::Array x = dev_.from_host(std::vector<float>(5000, 1.0f));
  float s = -1;
  compile_or_skip([&] { s = x.sum<float>(); });
  ASSERT_EQ(fake_ze_launch_count(), 1) << "one reduction launch";
  const FakeZeLaunch l = launches()[0];
  EXPECT_EQ(l.group_size[0], 256u);
  // Launched as any kernel (runtime/reductions/array_reduction_kernel): x, the result, the scalar pack, then __n__, the
  // groups (ceil(5000 / 256)); the pack holds x's element count, 64-bit (the fake's memory is the host's).
  EXPECT_EQ(arg_u64(l, 0), reinterpret_cast<std::uint64_t>(ptr_of(x)));
  EXPECT_EQ(arg_u64(l, 3), 20u) << "__n__: the groups";
  EXPECT_EQ(reinterpret_cast<const std::int64_t*>(arg_u64(l, 2))[0], 5000) << "the count as a 64-bit value";
  EXPECT_EQ(s, 0.0f) << "the fake runs nothing: the result keeps the identity";

  // Group limits below 256: the host reduces (the fake's copies are real, so the sum is).
  fake_ze_reset();
  fake_ze_set_compute(128, 128, 65535);
  tack::Device small = tack_test::fresh_level_zero_device();
  tack::Array y = small.from_host(std::vector<float>(5000, 1.0f));
  EXPECT_EQ(y.sum<float>(), 5000.0f);
  EXPECT_EQ(fake_ze_launch_count(), 0);
}

TEST(LevelZeroFakeLoader, ExportsEveryEntryTheTableResolves) {
  void* fake = dlopen(TACK_FAKE_LEVEL_ZERO_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr) << dlerror();
  const ze::Api& api = ze::api();
  EXPECT_EQ(api.library, std::getenv("TACK_LEVEL_ZERO_LIBRARY"));
  tack_test::expect_every_entry_from_the_fake(api, "tack_fake_level_zero");
}

}  // namespace

int main(int argc, char** argv) {
  return tack_test::run_tests_over_the_fake(argc, argv, "TACK_LEVEL_ZERO_LIBRARY", TACK_FAKE_LEVEL_ZERO_LIBRARY);
}
