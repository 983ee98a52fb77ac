// The hip backend through Tack's public API, over the stand-in runtime
// (tests/support/fake_hip): what it asks the runtime to do, in which order, on
// a machine without an AMD GPU. Memory, copies, fills, the buffer cache, the
// pool, waits and device choice, and the allocations of a warm launch (which
// the fake records, never runs; tests/device/ would check results on a GPU).
//
// ctest sets TACK_HIP_LIBRARY to the fake; run by hand, main sets it to the
// fake this executable was built with.
#include "support/alloc_count.hpp"
#include "support/fake_driver.hpp"
#include "support/fake_hip/fake_hip.hpp"

#include "backends/hip/hip_kernel.hpp"
#include "codegen/identifiers.hpp"
#include "drivers/hip_api.hpp"
#include "drivers/rtc_api.hpp"
#include "ir/printer.hpp"
#include "runtime/cache/cache_key.hpp"
#include "runtime/cache/cached_binary.hpp"
#include "runtime/cache/disk_cache.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/waits/wait_deadline.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using namespace tack::lang;

int count(const std::vector<std::string>& calls, const std::string& name) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), name));
}

std::ptrdiff_t first(const std::vector<std::string>& calls, const std::string& name) {
  auto it = std::find(calls.begin(), calls.end(), name);
  return it == calls.end() ? -1 : it - calls.begin();
}

tack::Device hip() { return tack::device("hip"); }

TEST(HipRuntime, OpensTheFakeDevice) {
  tack::Device d = hip();
  EXPECT_EQ(d.name(), "hip");
  EXPECT_EQ(d.capabilities().device_memory_spaces, std::vector<std::string>{"hip"});
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
  struct Restore {
    ~Restore() {
      tack::runtime::set_wait_timeout_s(0);
      std::lock_guard lock(fake_hip::state().mutex);
      fake_hip::state().event_query = 0;
    }
  } restore;
  tack::runtime::set_wait_timeout_s(0.2);
  {
    std::lock_guard lock(fake_hip::state().mutex);
    fake_hip::state().event_query = 600;  // hipErrorNotReady
  }
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
  {
    std::lock_guard lock(fake_hip::state().mutex);
    fake_hip::state().event_query = 0;
  }
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

// DESIGN §5's warm path, as on cuda and level_zero: once a variant is built and
// its arrays exist, a launch allocates nothing in Tack, on any thread, by new or
// malloc (the fake runtime's own call log is left out). hipRTC cannot compile
// without a GPU, so the kernel's code object is put in the disk cache under the
// key its build asks for (the typed IR the specialize observer sees); the fake
// loads it and records the launches.
TEST_F(HipCachedCodeObject, AWarmLaunchAllocatesNothing) {
  const std::string name = "hip_warm_" + std::to_string(::getpid());  // no other run's entry
  bool stored = false;
  tack::runtime::set_specialize_observer([&](const tack::ir::Kernel& typed) {
    if (typed.name != name) return;
    const std::optional<tack::runtime::CacheKey> key =
        tack::backends::hip::cache_key(device->info().arch, device->info().runtime_version, major, minor,
                                       tack::ir::to_string(typed), typed.fp_contract);
    if (!key) return;
    cache.store(tack::runtime::key_text(*key),
                tack::runtime::encode_cached_binary(tack::codegen::kernel_entry_name(name), "CODE"));
    stored = true;
  });
  struct Cleanup {
    Cleanup() { fake_hip::state().modules_load = true; }
    ~Cleanup() {
      fake_hip::state().modules_load = false;
      tack::runtime::set_specialize_observer({});
    }
  } cleanup;
  tack::Device d = hip();
  const tack::Kernel k = tack::kernel(
      name, [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  tack::Array x = d.from_host(std::vector<float>(1000, 1.0f)), y = d.from_host(std::vector<float>(1000, 2.0f));
  const std::uint64_t compiles = tack::backends::hip::hiprtc_compile_count();
  k(y, x, 3.0f);
  ASSERT_TRUE(stored) << "the hip key could not be made";
  ASSERT_EQ(tack::backends::hip::hiprtc_compile_count(), compiles) << "the code object came from the cache";
  k(y, x, 2.0f);  // the variant's pack buffers and scratch are made by now
  fake_hip::take_calls();
  ASSERT_EQ(alloc_count::self_check("tack_fake_hip"), "") << "the counter counts";
  const int allocations = alloc_count::count_in("tack_fake_hip", [&] { k(y, x, 1.5f); });
  EXPECT_EQ(allocations, 0) << "first allocation from " << alloc_count::first_caller();
  EXPECT_EQ(count(fake_hip::take_calls(), "hipModuleLaunchKernel"), 1) << "the warm call launched";
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
