// The hip backend through Tack's public API, over the stand-in runtime
// (tests/support/fake_hip): what it asks the runtime to do, in which order and
// with which values, on a machine without an AMD GPU. Memory, copies, fills,
// the buffer cache, the pool, waits and device choice; and launches (HipLaunch,
// below, as test_cuda_runtime.cpp checks cuda's): their geometry and
// parameters, the scalar pack each queued launch reads, the device reductions,
// launch errors at the call and at the next wait, dropped arrays behind their
// launches, and the warm path's allocations. The fake records kernels, never
// runs them; tests/device/ would check results on a GPU.
//
// ctest sets TACK_HIP_LIBRARY to the fake; run by hand, main sets it to the
// fake this executable was built with.
#include "support/alloc_count.hpp"
#include "support/fake_driver.hpp"
#include "support/fake_hip/fake_hip.hpp"
#include "support/launch_path.hpp"
#include "support/scoped_env.hpp"

#include "backends/hip/hip_kernel.hpp"
#include "backends/hip/hip_memory.hpp"
#include "codegen/identifiers.hpp"
#include "drivers/hip_api.hpp"
#include "drivers/rtc_api.hpp"
#include "ir/printer.hpp"
#include "passes/pipeline.hpp"
#include "runtime/cache/cache_key.hpp"
#include "runtime/cache/cached_binary.hpp"
#include "runtime/cache/disk_cache.hpp"
#include "runtime/devices/compile_recipe.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/reductions/array_reduction_kernel.hpp"
#include "runtime/reductions/device_reductions.hpp"
#include "runtime/waits/wait_deadline.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

using namespace tack::lang;
using tack_test::fill_n;
using tack_test::saxpy;

int count(const std::vector<std::string>& calls, const std::string& name) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), name));
}

std::ptrdiff_t first(const std::vector<std::string>& calls, const std::string& name) {
  auto it = std::find(calls.begin(), calls.end(), name);
  return it == calls.end() ? -1 : it - calls.begin();
}

tack::Device hip() { return tack::device("hip"); }

// For the scope's life, or until finish(): TACK_WAIT_TIMEOUT_S (through its test hook) at `timeout_s`, and every
// event unfinished (hipEventQuery answers hipErrorNotReady, as after a kernel that loops forever).
class WorkThatNeverEnds {
 public:
  explicit WorkThatNeverEnds(double timeout_s) {
    tack::runtime::set_wait_timeout_s(timeout_s);
    set_event_query(600);
  }
  ~WorkThatNeverEnds() {
    finish();
    tack::runtime::set_wait_timeout_s(0);
  }
  void finish() { set_event_query(0); }

 private:
  static void set_event_query(int code) {
    std::lock_guard lock(fake_hip::state().mutex);
    fake_hip::state().event_query = code;
  }
};

TEST(HipRuntime, OpensTheFakeDevice) {
  tack::Device d = hip();
  EXPECT_EQ(d.name(), "hip");
  EXPECT_EQ(d.capabilities().device_memory_spaces, (std::vector<std::string>{"hip", "hip_pinned", "hip_managed"}));
}

TEST(HipRuntime, WritesAreQueuedAndReadsWaitOnAnEventFirst) {
  tack::Device d = hip();
  fake_hip::take_calls();
  tack::Array a = d.from_host(std::vector<float>{1, 2, 3, 4});
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count(calls, "hipMemcpyHtoDAsync"), 1);
  EXPECT_EQ(count(calls, "hipEventSynchronize"), 0) << "a write does not wait";
  EXPECT_EQ(a.to_host<float>(), (std::vector<float>{1, 2, 3, 4}));
  calls = fake_hip::take_calls();
  const auto wait = first(calls, "hipEventSynchronize"), copy = first(calls, "hipMemcpyDtoHAsync");
  ASSERT_GE(wait, 0);
  ASSERT_GE(copy, 0);
  EXPECT_LT(wait, copy) << "the read waits on an event before the copy";
  EXPECT_EQ(first(calls, "hipEventCreateWithFlags(other)"), -1) << "events are blocking-sync, no timing";
}

TEST(HipRuntime, OneBlockingStreamPerDevice) {
  tack::Device d = hip();
  d.from_host(std::vector<int>{1}).to_host<int>();
  tack::Device again = hip();
  again.from_host(std::vector<int>{2}).to_host<int>();
  // Made once for the shared device, on first use, with hipStreamDefault (ordered with the null stream).
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count(calls, "hipStreamCreateWithFlags(other)"), 0);
}

TEST(HipRuntime, FillsOfEachWidthReadBack) {
  tack::Device d = hip();
  tack::Array i8 = d.zeros(tack::DType::I8, {5});
  i8.fill<std::int8_t>(-3);
  EXPECT_EQ(i8.to_host<std::int8_t>(), std::vector<std::int8_t>(5, -3));
  tack::Array u16 = d.zeros(tack::DType::U16, {3});
  u16.fill<std::uint16_t>(0xBEEF);
  EXPECT_EQ(u16.to_host<std::uint16_t>(), std::vector<std::uint16_t>(3, 0xBEEF));
  tack::Array f32 = d.zeros(tack::DType::F32, {4});
  f32.fill(2.5f);
  EXPECT_EQ(f32.to_host<float>(), std::vector<float>(4, 2.5f));
  tack::Array f64 = d.zeros(tack::DType::F64, {7});
  f64.fill(1.0 / 3.0);  // unequal 32-bit halves: written as a pattern
  EXPECT_EQ(f64.to_host<double>(), std::vector<double>(7, 1.0 / 3.0));
  tack::Array i64 = d.zeros(tack::DType::I64, {3});
  i64.fill<std::int64_t>(-1);  // equal halves: one 32-bit fill
  EXPECT_EQ(i64.to_host<std::int64_t>(), std::vector<std::int64_t>(3, -1));
}

TEST(HipRuntime, ADroppedArraysBufferServesTheNextArrayOfItsClass) {
  tack::Device d = hip();
  d.from_host(std::vector<float>(1000, 1.0f)).to_host<float>();  // made and dropped
  fake_hip::take_calls();
  tack::Array b = d.from_host(std::vector<float>(990, 2.0f));  // same capacity class (4096 bytes)
  EXPECT_EQ(b.to_host<float>(), std::vector<float>(990, 2.0f));
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count(calls, "hipMalloc"), 0) << "reused from the cache";
  EXPECT_EQ(count(calls, "hipFree"), 0);
}

TEST(HipRuntime, PoolAllocatorWhenAskedFor) {
  setenv("TACK_HIP_ALLOCATOR", "pool", 1);
  fake_hip::take_calls();
  {
    tack::Device d = tack::device("hip", {{"device", std::int64_t{0}}});  // a device of its own
    d.from_host(std::vector<float>{1, 2}).to_host<float>();
  }
  unsetenv("TACK_HIP_ALLOCATOR");
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count(calls, "hipMemPoolSetAttribute(threshold max)"), 1);
  EXPECT_EQ(count(calls, "hipMallocAsync"), 1);
  EXPECT_EQ(count(calls, "hipFreeAsync"), 1);
  EXPECT_EQ(count(calls, "hipMalloc"), 0);
}

TEST(HipRuntime, ADeviceWithoutMemoryPoolsFallsBackToTheCache) {
  setenv("TACK_HIP_ALLOCATOR", "pool", 1);
  fake_hip::state().memory_pools = 0;
  fake_hip::take_calls();
  {
    tack::Device d = tack::device("hip", {{"device", std::int64_t{0}}});
    d.from_host(std::vector<float>{1, 2}).to_host<float>();
  }
  fake_hip::state().memory_pools = 1;
  unsetenv("TACK_HIP_ALLOCATOR");
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count(calls, "hipMallocAsync"), 0);
  EXPECT_EQ(count(calls, "hipMalloc"), 1);
  EXPECT_EQ(count(calls, "hipFree"), 1) << "the device's cache is released with it";
}

// The device runs out of memory mid-run (the runtime's memory is shrunk to what
// is in use, so the next hipMalloc fails even after the buffer cache has let go
// of what it held): BackendError naming the call and the size, and the arrays
// made before keep their contents.
TEST(HipRuntime, OutOfMemoryMidRunKeepsEarlierArrays) {
  tack::Device d = hip();
  std::vector<float> a(1000), b(333);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * static_cast<float>(i);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = -static_cast<float>(i);
  tack::Array x = d.from_host(a), y = d.from_host(b);
  d.synchronize();
  auto& s = fake_hip::state();
  std::size_t total = 0;
  {
    std::lock_guard lock(s.mutex);
    total = s.total_memory;
    std::size_t used = 0;
    for (auto& [p, n] : s.live) used += n;
    s.total_memory = used + 4096;
  }
  try {
    tack::Array z = d.empty(tack::DType::F32, {1 << 20});
    ADD_FAILURE() << "the refused allocation gave an array";
  } catch (const tack::BackendError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of device memory"), std::string::npos) << m;
    EXPECT_NE(m.find("(hipMalloc)"), std::string::npos) << "the call: " << m;
    EXPECT_NE(m.find(std::to_string(4 << 20) + " bytes"), std::string::npos) << "the size: " << m;
  }
  {
    std::lock_guard lock(s.mutex);
    s.total_memory = total;
  }
  EXPECT_EQ(x.to_host<float>(), a);
  EXPECT_EQ(y.to_host<float>(), b);
  EXPECT_EQ(d.from_host(b).to_host<float>(), b) << "the fault is not sticky";
}

TEST(HipRuntime, WaitsAreEventWaitsEvenOffThread) {
  tack::Device d = hip();
  d.from_host(std::vector<float>{1});
  fake_hip::take_calls();
  tack::sync();
  d.synchronize_async().get();
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_GE(count(calls, "hipEventSynchronize"), 2);
  EXPECT_GE(count(calls, "hipEventRecord"), 2);
}

// TACK_WAIT_TIMEOUT_S (set through its test hook): an event that never completes (hipEventQuery answers
// hipErrorNotReady, as after a kernel that loops forever) raises BackendError at the deadline, naming the
// backend and the timeout, and the blocking hipEventSynchronize is never entered.
TEST(HipRuntime, WaitPastTheTimeoutRaisesBackendError) {
  tack::Device d = hip();
  d.from_host(std::vector<float>{1});
  WorkThatNeverEnds hang(0.2);
  fake_hip::take_calls();
  const auto start = std::chrono::steady_clock::now();
  try {
    d.synchronize();
    ADD_FAILURE() << "Device::synchronize did not time out";
  } catch (const tack::BackendError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("hip: a wait for the queued work did not finish within 0.2 s (TACK_WAIT_TIMEOUT_S)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("the last launch queued was no kernel"), std::string::npos) << m;
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 5.0);
  EXPECT_THROW(d.synchronize_async().get(), tack::BackendError);
  std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_GE(count(calls, "hipEventQuery"), 2);
  EXPECT_EQ(count(calls, "hipEventSynchronize"), 0);
  hang.finish();
  EXPECT_NO_THROW(d.synchronize()) << "once the work is done the same device waits normally";
}

TEST(HipRuntime, AnOrdinalTheRuntimeLacksIsRefusedWithTheCount) {
  try {
    tack::device("hip", {{"device", std::int64_t{3}}});
    FAIL() << "device 3 of 1 accepted";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("1 device"), std::string::npos) << e.what();
  }
}

// The tests that put a code object in the disk cache under the key a build asks for: the cache must be on
// (ctest gives each test its own folder), and hipRTC's version is part of the key.
class HipCachedCodeObject : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cache.enabled() || !std::getenv("TACK_CACHE_DIR")) GTEST_SKIP() << "run through ctest, with the disk cache on";
    std::string why;
    const tack::drivers::RtcApi* rtc = tack::drivers::hiprtc(&why);
    if (!rtc || rtc->version(&major, &minor) != 0) GTEST_SKIP() << "hipRTC is not available: " << why;
    device = tack::backends::hip::Device::open({});
  }
  tack::runtime::DiskCache& cache = tack::runtime::DiskCache::global();
  int major = 0, minor = 0;
  std::shared_ptr<tack::backends::hip::Device> device;
};

// The HIP flow loads a code object the disk cache holds for this device's architecture, hipRTC's version and
// options, without compiling (the first build's compile needs a GPU; the store is the flow every backend
// shares, tests/unit/test_load_or_build.cpp).
TEST_F(HipCachedCodeObject, ASecondBuildLoadsItWithoutHipRtc) {
  const std::string code = "kernel cached_" + std::to_string(::getpid());
  const std::optional<tack::runtime::CacheKey> key =
      tack::backends::hip::cache_key(device->info().arch, device->info().runtime_version, major, minor, code, true);
  ASSERT_TRUE(key) << "the fake names its architecture";
  cache.store(tack::runtime::key_text(*key), tack::runtime::encode_cached_binary("tack_kernel_cached", "CODE"));
  fake_hip::state().modules_load = true;
  const std::uint64_t compiles = tack::backends::hip::hiprtc_compile_count();
  const std::uint64_t loads = tack::backends::hip::code_object_cache_load_count();
  const tack::abi::PackedKernel nothing;
  const tack::runtime::LazySource generate{[](const tack::abi::PackedKernel&) -> tack::abi::CSource {
                                             ADD_FAILURE() << "the cached code object was not used";
                                             return {};
                                           },
                                           &nothing};
  std::unique_ptr<tack::backends::hip::Module> m =
      tack::backends::hip::build_module(device, {code, generate, "kernel 'cached'", true});
  fake_hip::state().modules_load = false;
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry(), "tack_kernel_cached");
  EXPECT_EQ(tack::backends::hip::code_object_cache_load_count(), loads + 1);
  EXPECT_EQ(tack::backends::hip::hiprtc_compile_count(), compiles);
}

// The launch path over the stand-in, as the cuda tests check it over theirs
// (test_cuda_runtime.cpp). hipRTC cannot compile here (no GPU; Debian's comgr
// shares the process's LLVM), so every kernel the hip device specializes, the
// user's and the device reductions', gets its generated HIP C put in the disk
// cache as its code object, under the key its build asks for (the typed IR the
// specialize observer sees); the build loads that from the cache through
// Tack's own flow, and the fake sizes each launch's parameters from the
// entry's signature, as the cuda stand-in does from PTX. Kernels are recorded,
// never run.
class HipLaunch : public HipCachedCodeObject {
 protected:
  void SetUp() override {
    HipCachedCodeObject::SetUp();
    if (IsSkipped()) return;
    fake_hip::reset();
    fake_hip::state().modules_load = true;
    dev_ = hip();
    const tack::runtime::CompileRecipe& recipe = tack::detail::Access::backend(dev_)->recipe();
    tack::runtime::set_specialize_observer([this, &recipe](const tack::ir::Kernel& typed) {
      const std::optional<tack::runtime::CacheKey> key =
          tack::backends::hip::cache_key(device->info().arch, device->info().runtime_version, major, minor,
                                         tack::ir::to_string(typed), typed.fp_contract);
      if (!key) return;
      const tack::abi::CSource source = recipe.emit(tack::passes::lower_for_backend(typed, recipe.lowering));
      cache.store(tack::runtime::key_text(*key), tack::runtime::encode_cached_binary(source.entry, source.text));
      ++stored;
    });
  }
  void TearDown() override {
    tack::runtime::set_specialize_observer({});
    fake_hip::state().modules_load = false;
    fake_hip::reset();
  }

  // The fake's log, read by the shared readers (support/launch_path.hpp).
  struct Log {
    std::vector<fake_hip::Op> ops = fake_hip::log();
    int size() const { return static_cast<int>(ops.size()); }
    tack_test::LoggedOp at(int i) const {
      const fake_hip::Op& op = ops[static_cast<std::size_t>(i)];
      return {op.what, op.pointer, op.bytes, op.payload.data()};
    }
    const fake_hip::Op& operator[](int i) const { return ops[static_cast<std::size_t>(i)]; }
    int count(const std::string& what) const {
      return static_cast<int>(
          std::count_if(ops.begin(), ops.end(), [&](const fake_hip::Op& op) { return op.what == what; }));
    }
  };
  // The first launch the fake recorded after a build that loaded its code object and sized its parameters.
  static fake_hip::Launch only_launch() {
    const std::vector<fake_hip::Launch> ls = fake_hip::launches();
    EXPECT_EQ(ls.size(), 1u);
    return ls.empty() ? fake_hip::Launch{} : ls[0];
  }
  static std::uint64_t ptr(const tack::Array& a) {
    return reinterpret_cast<std::uint64_t>(tack::backends::hip::device_pointer(*tack::detail::Access::storage(a)));
  }

  tack::Device dev_;
  int stored = 0;  // code objects the observer put in the cache
};

TEST_F(HipLaunch, CopiesLaunchAndReadBackInOrderOnOneStream) {
  tack::Array x = dev_.from_host(std::vector<float>(1000, 1.0f)), y = dev_.from_host(std::vector<float>(1000, 2.0f));
  const std::uint64_t compiles = tack::backends::hip::hiprtc_compile_count();
  saxpy()(y, x, 3.0f);
  EXPECT_EQ(tack::backends::hip::hiprtc_compile_count(), compiles) << "the code object came from the cache";
  EXPECT_GE(stored, 1);
  EXPECT_EQ(count(fake_hip::take_calls(), "hipEventSynchronize"), 0) << "the launch is queued, not waited for";
  std::vector<float> out = y.to_host<float>();
  const Log log;
  const int launch = tack_test::find_entry(log, "launch ");
  ASSERT_GE(launch, 0) << "no launch in the log";
  EXPECT_EQ(log[launch].what, "launch tack_kernel_saxpy");
  const int up_x = tack_test::find_entry(log, "htod", 0, ptr(x)), up_y = tack_test::find_entry(log, "htod", 0, ptr(y));
  const int sync = tack_test::find_entry(log, "event_sync", launch);
  const int down = tack_test::find_entry(log, "dtoh", launch, ptr(y));
  EXPECT_LT(up_x, launch);
  EXPECT_LT(up_y, launch);
  EXPECT_GT(sync, launch) << "to_host waits on an event after the launch";
  EXPECT_GT(down, sync) << "and then copies";
  EXPECT_EQ(log[launch].stream, log[up_x].stream) << "copies and launches share the device's one stream";
  EXPECT_EQ(log[down].stream, log[launch].stream);
  EXPECT_EQ(out, std::vector<float>(1000, 2.0f)) << "the fake runs nothing";
}

TEST_F(HipLaunch, LaunchGeometryAndParameters) {
  for (std::int64_t n : {1, 255, 256, 257, 100000}) {
    fake_hip::reset();
    tack::Array x = dev_.zeros(tack::DType::F32, {n}), y = dev_.zeros(tack::DType::F32, {n});
    saxpy()(y, x, 1.0f);
    const fake_hip::Launch l = only_launch();
    EXPECT_EQ(l.name, "tack_kernel_saxpy");
    EXPECT_EQ(l.block[0], 256u) << "n = " << n;
    EXPECT_EQ(l.block[1] * l.block[2] * l.grid[1] * l.grid[2], 1u);
    EXPECT_EQ(l.grid[0], static_cast<unsigned>((n + 255) / 256)) << "n = " << n;
    EXPECT_EQ(l.shared_bytes, 0u);
    // y, x, the scalar pack, __n__.
    ASSERT_EQ(l.param_count, 4) << "the entry's signature was not read";
    for (int p = 0; p < 4; ++p) EXPECT_EQ(l.param_size[p], 8u) << "parameter " << p;
    EXPECT_EQ(tack_test::param_u64(l, 0), ptr(y));
    EXPECT_EQ(tack_test::param_u64(l, 1), ptr(x));
    EXPECT_EQ(static_cast<std::int64_t>(tack_test::param_u64(l, 3)), n) << "__n__";
  }
}

// Every launch writes its own scalars into the variant's pack buffer, queued just before it, so launches queued
// back to back, never waited for in between, each read their own value when they run.
TEST_F(HipLaunch, EachQueuedLaunchReadsItsOwnScalarPack) {
  tack::Array x = dev_.zeros(tack::DType::F32, {512}), y = dev_.zeros(tack::DType::F32, {512});
  saxpy()(y, x, 0.5f);
  fake_hip::reset();
  for (int i = 1; i <= 4; ++i) saxpy()(y, x, static_cast<float>(i));
  const std::vector<fake_hip::Launch> ls = fake_hip::launches();
  ASSERT_EQ(ls.size(), 4u);
  const Log log;
  int previous = -1;
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(tack_test::pack_holds(log, ls[i], previous, static_cast<float>(i + 1), {ptr(x), ptr(y)}))
        << "launch " << i << " does not read a pack uploaded just before it with a = " << i + 1;
    EXPECT_EQ(tack_test::param_u64(ls[i], 2), tack_test::param_u64(ls[0], 2)) << "one pack buffer per variant";
    previous = ls[i].log_index;
  }
  EXPECT_EQ(tack_test::find_entry(log, "event_sync"), -1) << "launches return without waiting";
  EXPECT_EQ(count(fake_hip::take_calls(), "hipMalloc"), 0) << "the pack buffer is made once, with the variant";
}

TEST_F(HipLaunch, FourThreadsKeepTheirOwnScalars) {
  constexpr int kThreads = 4;
  std::vector<tack::Array> xs, ys;
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(dev_.zeros(tack::DType::F32, {256}));
    ys.push_back(dev_.zeros(tack::DType::F32, {256}));
  }
  saxpy()(ys[0], xs[0], 0.25f);
  fake_hip::reset();
  for (int round = 0; round < 20; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { saxpy()(ys[t], xs[t], static_cast<float>(t + 1)); });
    for (auto& th : threads) th.join();
  }
  const std::vector<fake_hip::Launch> ls = fake_hip::launches();
  ASSERT_EQ(ls.size(), 20u * kThreads);
  std::vector<std::uint64_t> arrays;
  for (int t = 0; t < kThreads; ++t) {
    arrays.push_back(ptr(xs[t]));
    arrays.push_back(ptr(ys[t]));
  }
  const Log log;
  int previous = -1;
  for (const fake_hip::Launch& l : ls) {
    int t = -1;
    for (int i = 0; i < kThreads; ++i)
      if (tack_test::param_u64(l, 0) == ptr(ys[i])) t = i;
    ASSERT_GE(t, 0) << "a launch on an unknown array";
    EXPECT_TRUE(tack_test::pack_holds(log, l, previous, static_cast<float>(t + 1), arrays))
        << "thread " << t << "'s launch reads another thread's scalars";
    EXPECT_EQ(tack_test::param_u64(l, 1), ptr(xs[t]));
    previous = l.log_index;
  }
}

TEST_F(HipLaunch, EmptyRangeLaunchesNothing) {
  tack::Array y = dev_.zeros(tack::DType::F32, {16});
  fill_n()(y, std::int64_t{4});
  ASSERT_EQ(fake_hip::launches().size(), 1u);
  fill_n()(y, std::int64_t{0});
  EXPECT_EQ(fake_hip::launches().size(), 1u);
}

TEST_F(HipLaunch, LaunchLargerThanTheGridIsRefused) {
  struct Restore {
    ~Restore() { fake_hip::state().max_grid_dim_x = 2147483647; }
  } restore;
  fake_hip::state().max_grid_dim_x = 4;  // 4 blocks of 256
  tack::Device small = tack::device("hip", {{"device", std::int64_t{0}}});
  tack::Array y = small.zeros(tack::DType::F32, {4 * 256 + 1});
  fill_n()(y, std::int64_t{4 * 256});
  ASSERT_EQ(fake_hip::launches().size(), 1u);
  EXPECT_EQ(fake_hip::launches()[0].grid[0], 4u);
  try {
    fill_n()(y, std::int64_t{4 * 256 + 1});
    ADD_FAILURE() << "a launch of 5 blocks on a device of 4 was accepted";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("fill_n"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fake_hip::launches().size(), 1u) << "nothing launched for the refused call";
}

// The runtime refuses the launch itself: BackendError at the call, naming it; nothing is queued, and the next
// launch goes ahead.
TEST_F(HipLaunch, ARefusedLaunchRaisesAtTheCall) {
  tack::Array x = dev_.zeros(tack::DType::F32, {300}), y = dev_.zeros(tack::DType::F32, {300});
  saxpy()(y, x, 2.0f);
  fake_hip::fail("hipModuleLaunchKernel", 1, 1);  // hipErrorInvalidValue
  try {
    saxpy()(y, x, 2.0f);
    ADD_FAILURE() << "the refused launch returned";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("hipModuleLaunchKernel"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hipErrorInvalidValue"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fake_hip::launches().size(), 1u);
  EXPECT_NO_THROW(saxpy()(y, x, 2.0f));
  EXPECT_EQ(fake_hip::launches().size(), 2u);
}

// The device faults while running a launch: the runtime reports it at the next wait on the stream, which raises
// it as a BackendError, through Device::synchronize, Array::to_host and tack::sync alike.
TEST_F(HipLaunch, AFailedLaunchSurfacesAtTheNextWait) {
  tack::Array x = dev_.zeros(tack::DType::F32, {300}), y = dev_.zeros(tack::DType::F32, {300});
  saxpy()(y, x, 2.0f);
  dev_.synchronize();
  fake_hip::fail("hipEventSynchronize", 719, 1);  // hipErrorLaunchFailure
  EXPECT_NO_THROW(saxpy()(y, x, 2.0f)) << "a launch returns before the kernel runs";
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not raise the launch failure";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("hipEventSynchronize"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hipErrorLaunchFailure"), std::string::npos) << e.what();
  }
  fake_hip::fail("hipEventSynchronize", 719, 1);
  saxpy()(y, x, 2.0f);
  try {
    (void)y.to_host<float>();
    ADD_FAILURE() << "to_host did not raise the launch failure";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("hipErrorLaunchFailure"), std::string::npos) << e.what();
  }
  fake_hip::fail("hipEventSynchronize", 719, 1);
  saxpy()(y, x, 2.0f);
  EXPECT_THROW(tack::sync(), tack::BackendError);
  EXPECT_NO_THROW(dev_.synchronize()) << "the fake's fault is not sticky";
}

// With TACK_WAIT_TIMEOUT_S set the wait polls hipEventQuery: a fault it reports ends the poll at once and is
// raised, not taken for work still running until the deadline.
TEST_F(HipLaunch, AFailedLaunchSurfacesAtABoundedWaitWithoutWaitingOut) {
  tack::Array x = dev_.zeros(tack::DType::F32, {300}), y = dev_.zeros(tack::DType::F32, {300});
  struct Restore {
    ~Restore() { tack::runtime::set_wait_timeout_s(0); }
  } restore;
  tack::runtime::set_wait_timeout_s(30);
  saxpy()(y, x, 2.0f);
  fake_hip::fail("hipEventQuery", 719, 1);
  fake_hip::fail("hipEventSynchronize", 719, 1);  // which then returns the same error, as the runtime does
  const auto start = std::chrono::steady_clock::now();
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not raise the launch failure";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("hipErrorLaunchFailure"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

// A wait past TACK_WAIT_TIMEOUT_S names the kernel queued last, for the user to find the one that hangs.
TEST_F(HipLaunch, WaitPastTheTimeoutNamesTheLastKernel) {
  tack::Array x = dev_.zeros(tack::DType::F32, {300}), y = dev_.zeros(tack::DType::F32, {300});
  saxpy()(y, x, 2.0f);
  WorkThatNeverEnds hang(0.2);
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not time out";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'saxpy'"), std::string::npos) << e.what();
  }
}

// The buffer cache through launches: a dropped array's buffer is never freed while its launch may run (hipFree
// would wait for the device); it serves the next array of its capacity class, whose upload is queued behind the
// launch on the one stream, and an array of another class gets a buffer of its own.
TEST_F(HipLaunch, ADroppedArraysBufferIsReusedByItsClassBehindItsLaunch) {
  tack::Array y = dev_.zeros(tack::DType::F32, {1000});
  std::uint64_t dropped = 0;
  {
    tack::Array x = dev_.from_host(std::vector<float>(1000, 1.0f));
    dropped = ptr(x);
    saxpy()(y, x, 2.0f);
  }                                                                                // dropped with its launch queued
  const tack::Array same_class = dev_.from_host(std::vector<float>(990, 3.0f));    // 3960 bytes: the 4096 class
  const tack::Array other_class = dev_.from_host(std::vector<float>(1300, 4.0f));  // 5200 bytes: the 6144 class
  const Log log;
  EXPECT_EQ(log.count("free"), 0) << "nothing is freed: the cache keeps dropped buffers";
  EXPECT_EQ(ptr(same_class), dropped) << "the dropped buffer serves the next array of its class";
  const int launch = tack_test::find_entry(log, "launch ");
  ASSERT_GE(launch, 0);
  EXPECT_EQ(tack_test::param_u64(only_launch(), 1), dropped);
  const int reuse = tack_test::find_entry(log, "htod", launch + 1, dropped);
  EXPECT_GT(reuse, launch) << "the new array's upload is queued after the launch that read the old one";
  EXPECT_EQ(log[reuse].stream, log[launch].stream);
  EXPECT_NE(ptr(other_class), dropped);
  const int alloc = tack_test::find_entry(log, "alloc", launch + 1, ptr(other_class));
  ASSERT_GE(alloc, 0) << "an array of another class is a new hipMalloc";
  EXPECT_EQ(log[alloc].bytes, tack::backends::hip::BufferCache::capacity_class(5200));
  EXPECT_EQ(log[alloc].bytes, 6144u);
}

// TACK_HIP_ALLOCATOR=pool: arrays and pack buffers come from hipMallocAsync on the device's stream, and an array
// dropped while its launch is queued goes back with hipFreeAsync on that stream, after the launch.
TEST_F(HipLaunch, PoolFreesADroppedArrayInStreamOrderAfterItsLaunch) {
  const tack_test::ScopedEnv pool("TACK_HIP_ALLOCATOR", "pool");
  tack::Device d = tack::device("hip", {{"device", std::int64_t{0}}});  // a device of its own, opened now
  tack::Array y = d.zeros(tack::DType::F32, {1000});
  std::uint64_t dropped = 0;
  {
    tack::Array x = d.from_host(std::vector<float>(1000, 1.0f));
    dropped = ptr(x);
    saxpy()(y, x, 2.0f);
    EXPECT_EQ(tack_test::find_entry(Log{}, "free_async", 0, dropped), -1) << "freed while alive";
  }
  const Log log;
  const int launch = tack_test::find_entry(log, "launch ");
  ASSERT_GE(launch, 0);
  EXPECT_EQ(tack_test::param_u64(only_launch(), 1), dropped);
  const int freed = tack_test::find_entry(log, "free_async", 0, dropped);
  ASSERT_GE(freed, 0) << "the dropped array's memory goes back to the pool";
  EXPECT_GT(freed, launch) << "after the launch that reads it";
  EXPECT_EQ(log[freed].stream, log[launch].stream) << "in stream order";
  const int pack_alloc = tack_test::find_entry(log, "alloc_async", 0, tack_test::param_u64(only_launch(), 2));
  EXPECT_GE(pack_alloc, 0) << "the scalar pack's buffer comes from the pool too";
  EXPECT_EQ(log.count("alloc"), 0) << "no hipMalloc";
  EXPECT_EQ(log.count("free"), 0) << "no hipFree";
}

// Array::sum/min/max of f32 through the device reduction kernels, as any launch: the result word filled with the
// op's identity, one launch of the op's kernel over x in ceil(5000 / 256) groups of 256 with x's element count in its
// scalar pack, then the word read back after the launch (the fake runs nothing, so it still holds the identity).
TEST_F(HipLaunch, SumMinAndMaxRunTheirDeviceKernels) {
  using tack::runtime::ReduceOp;
  tack::Array x = dev_.from_host(std::vector<float>(5000, 1.0f));
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max}) {
    const std::string name = op == ReduceOp::Sum ? "sum" : op == ReduceOp::Min ? "min" : "max";
    SCOPED_TRACE(name);
    fake_hip::reset();
    const std::uint64_t reductions = tack::runtime::DeviceReductions::launch_count();
    const float got = op == ReduceOp::Sum ? x.sum<float>() : op == ReduceOp::Min ? x.min<float>() : x.max<float>();
    EXPECT_EQ(tack::runtime::DeviceReductions::launch_count(), reductions + 1) << "reduced on the device";
    const fake_hip::Launch l = only_launch();
    EXPECT_EQ(l.name, tack::codegen::kernel_entry_name(tack::runtime::array_reduction_kernel(op).name()));
    EXPECT_EQ(l.grid[0], 20u) << "the groups";
    EXPECT_EQ(l.block[0], 256u);
    // x, the result, the scalar pack, __n__ (the groups).
    ASSERT_EQ(l.param_count, 4);
    EXPECT_EQ(tack_test::param_u64(l, 0), ptr(x));
    EXPECT_EQ(tack_test::param_u64(l, 3), 20u) << "__n__: the groups";
    const Log log;
    const std::uint64_t result = tack_test::param_u64(l, 1), pack = tack_test::param_u64(l, 2);
    const int fill = tack_test::find_entry(log, "memset", 0, result);
    ASSERT_GE(fill, 0) << "the result word is filled";
    EXPECT_LT(fill, l.log_index);
    EXPECT_EQ(log[fill].bytes, 4u);
    int upload = -1;
    for (int i = l.log_index - 1; i >= 0 && upload < 0; --i)
      if (log[i].what == "htod" && log[i].pointer == pack) upload = i;
    ASSERT_GE(upload, 0) << "the scalar pack is written before the launch";
    std::int64_t n = 0;
    ASSERT_GE(log[upload].payload.size(), sizeof n);
    std::memcpy(&n, log[upload].payload.data(), sizeof n);
    EXPECT_EQ(n, 5000) << "the pack holds x's element count, 64-bit";
    const int read = tack_test::find_entry(log, "dtoh", l.log_index, result);
    ASSERT_GT(read, l.log_index) << "the result is read after the launch";
    EXPECT_GT(read, tack_test::find_entry(log, "event_sync", l.log_index)) << "behind a wait";
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got), tack::runtime::reduction_identity_bits(op))
        << "the fake runs nothing: the result word keeps the identity";
  }
}

// Memory spaces through launches, as on cuda (test_cuda_memory_spaces.cpp): an array in hip_pinned or hip_managed
// memory is a kernel argument like any other (its device address, from hipHostGetDevicePointer for pinned memory),
// read by the host with memcpy once the stream has run the launch, and freed only after the stream's work.
TEST_F(HipLaunch, KernelsRunOverPinnedAndManagedMemory) {
  struct SpaceCase {
    const char* space;
    const char* alloc;  // the log's name of its allocation
    const char* free;   // and of its free
  };
  for (const SpaceCase& c :
       {SpaceCase{"hip_pinned", "alloc_host", "free_host"}, SpaceCase{"hip_managed", "alloc_managed", "free"}}) {
    SCOPED_TRACE(c.space);
    fake_hip::reset();
    std::uint64_t y_address = 0;
    {
      tack::Array y = dev_.zeros(tack::DType::F32, {300}, c.space);
      tack::Array x = dev_.from_host(std::vector<float>(300, 2.0f));
      y_address = ptr(y);
      saxpy()(y, x, 3.0f);
      const fake_hip::Launch l = only_launch();
      EXPECT_EQ(tack_test::param_u64(l, 0), y_address) << "the kernel gets the memory's device address";
      EXPECT_EQ(tack_test::param_u64(l, 1), ptr(x));
      const Log log;
      const int alloc = tack_test::find_entry(log, c.alloc, 0, y_address);
      ASSERT_GE(alloc, 0) << "allocated in its space, not from the buffer cache";
      EXPECT_LT(alloc, l.log_index);
      EXPECT_EQ(tack_test::find_entry(log, "alloc", 0, y_address), alloc) << "no hipMalloc of its own";
      const int zeroed = tack_test::find_entry(log, "memset", alloc, y_address);
      ASSERT_GE(zeroed, 0) << "zeros fills on the stream";
      EXPECT_LT(zeroed, l.log_index);
      EXPECT_EQ(log[zeroed].stream, log[l.log_index].stream);
      const std::vector<float> host = y.to_host<float>();
      const Log after;
      EXPECT_EQ(tack_test::find_entry(after, "dtoh", l.log_index, y_address), -1) << "the host reads it itself";
      EXPECT_GT(tack_test::find_entry(after, "event_sync", l.log_index), l.log_index) << "after the launch ran";
      EXPECT_EQ(host, std::vector<float>(300, 0.0f)) << "the fake runs nothing: the zeros stay";
      saxpy()(y, x, 1.0f);  // queued, never waited for: the drop below must wait
    }
    const Log log;
    const std::vector<fake_hip::Launch> ls = fake_hip::launches();
    ASSERT_EQ(ls.size(), 2u);
    int free = -1;  // exactly c.free ("free" also starts "free_host" and "free_async")
    for (int i = ls[1].log_index; i < log.size() && free < 0; ++i)
      if (log[i].what == c.free && log[i].pointer == y_address) free = i;
    ASSERT_GE(free, 0) << "freed when dropped, not kept in the buffer cache";
    const int wait = tack_test::find_entry(log, "event_sync", ls[1].log_index);
    EXPECT_GT(wait, ls[1].log_index);
    EXPECT_LT(wait, free) << "the second launch may still use the memory: the stream is waited for first";
  }
}

// DESIGN §5's warm path, as on cuda and level_zero: once a variant is built and
// its arrays exist, a launch allocates nothing in Tack, on any thread, by new or
// malloc (the fake runtime's own call log is left out).
TEST_F(HipLaunch, AWarmLaunchAllocatesNothing) {
  tack::Array x = dev_.from_host(std::vector<float>(1000, 1.0f)), y = dev_.from_host(std::vector<float>(1000, 2.0f));
  const tack::Kernel& k = saxpy();
  k(y, x, 3.0f);
  k(y, x, 2.0f);  // the variant's pack buffers and scratch are made by now
  fake_hip::reset();
  ASSERT_EQ(alloc_count::self_check("tack_fake_hip"), "") << "the counter counts";
  const int allocations = alloc_count::count_in("tack_fake_hip", [&] { k(y, x, 1.5f); });
  EXPECT_EQ(allocations, 0) << "first allocation from " << alloc_count::first_caller();
  EXPECT_EQ(fake_hip::launches().size(), 1u) << "the warm call launched";
}

TEST(HipFakeRuntime, ExportsEveryEntryTheTableResolves) {
  std::string why;
  const tack::drivers::hip::Api* api = tack::drivers::hip::load(&why);
  ASSERT_NE(api, nullptr) << why;
  EXPECT_EQ(api->library, std::getenv("TACK_HIP_LIBRARY"));
  tack_test::expect_every_entry_from_the_fake(*api, "tack_fake_hip");
}

}  // namespace

int main(int argc, char** argv) {
  return tack_test::run_tests_over_the_fake(argc, argv, "TACK_HIP_LIBRARY", TACK_FAKE_HIP_LIBRARY);
}
