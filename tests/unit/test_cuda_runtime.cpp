// The cuda backend through Tack's public API, over the stand-in driver
// (tests/support/fake_cuda): what it asks the driver to do, in which order and
// with which values, on a machine without a GPU. Kernels are compiled by NVRTC
// for real (they are skipped when NVRTC is missing) and recorded by the fake,
// never run, so these tests check launches, copies, fills, allocation and
// waits, not results; tests/device/ checks results on a GPU.
//
// ctest sets TACK_CUDA_LIBRARY to the fake; run by hand, main's fallback below
// sets it to the fake this executable was built with.
#include "unit/cuda_runtime_support.hpp"

#include "support/alloc_count.hpp"
#include "support/fake_driver.hpp"
#include "support/scoped_env.hpp"

#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_kernel.hpp"
#include "backends/cuda/cuda_memory.hpp"
#include "runtime/cache/disk_cache.hpp"
#include "runtime/waits/wait_deadline.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

namespace {

using namespace cuda_test;

TEST_F(CudaRuntime, DeviceReportsCudaCapabilities) {
  const tack::Capabilities& c = dev_.capabilities();
  EXPECT_EQ(c.name, "cuda");
  EXPECT_EQ(dev_.name(), "cuda");
  EXPECT_TRUE(c.supports_f64);
  EXPECT_TRUE(c.supports_device_reductions);
  EXPECT_TRUE(c.supports_workgroups);
  EXPECT_EQ(c.device_options, std::vector<std::string>{"device"});
  // Without options, the same device each time.
  EXPECT_EQ(tack::device("cuda"), dev_);
}

TEST_F(CudaRuntime, AllocatesOnTheStreamAndFreesInStreamOrderWhenDropped) {
  const int allocs = fake_cuda_count("cuMemAllocAsync"), frees = fake_cuda_count("cuMemFreeAsync");
  std::uint64_t ptr = 0;
  {
    tack::Array a = dev_.from_host(std::vector<float>(100, 1.5f));
    EXPECT_EQ(fake_cuda_count("cuMemAllocAsync"), allocs + 1);
    EXPECT_EQ(fake_cuda_count("cuMemAlloc_v2"), 0) << "memory pools are on: no cuMemAlloc";
    int at = find_entry("alloc_async");
    ASSERT_GE(at, 0);
    ptr = op_at(at).pointer;
    EXPECT_EQ(op_at(at).bytes, 400u);
    int htod = find_entry("htod", at, ptr);
    ASSERT_GT(htod, at) << "the upload follows the allocation";
    EXPECT_EQ(op_at(htod).stream, op_at(at).stream) << "one stream for allocation and copies";
    EXPECT_EQ(find_entry("free_async"), -1);
  }
  EXPECT_EQ(fake_cuda_count("cuMemFreeAsync"), frees + 1);
  int freed = find_entry("free_async", 0, ptr);
  ASSERT_GE(freed, 0) << "the dropped array's memory goes back in stream order";
  EXPECT_EQ(op_at(freed).stream, op_at(find_entry("alloc_async")).stream);
}

TEST_F(CudaRuntime, ZerosQueuesAFill) {
  tack::Array z = dev_.zeros(tack::DType::F32, {64});
  int at = find_entry("alloc_async");
  ASSERT_GE(at, 0);
  int fill = find_entry("memset", at, op_at(at).pointer);
  ASSERT_GT(fill, at);
  EXPECT_EQ(op_at(fill).bytes, 256u);
  EXPECT_EQ(find_entry("stream_sync"), -1) << "a fill is queued, not waited for";
  EXPECT_EQ(z.to_host<float>(), std::vector<float>(64, 0.0f));
}

// DESIGN §5's warm path: once a variant is compiled and its arrays exist, a
// launch allocates nothing in Tack, on any thread, by new or malloc (the fake
// driver's own bookkeeping is left out).
TEST_F(CudaRuntime, AWarmLaunchAllocatesNothing) {
  tack::Array x = dev_.from_host(std::vector<float>(1000, 1.0f));
  tack::Array y = dev_.from_host(std::vector<float>(1000, 2.0f));
  const tack::Kernel k = saxpy();
  compile_or_skip([&] { k(y, x, 3.0f); });
  k(y, x, 2.0f);  // the variant's pack buffers and scratch are made by now
  ASSERT_EQ(alloc_count::self_check("tack_fake_cuda"), "") << "the counter counts";
  const int allocations = alloc_count::count_in("tack_fake_cuda", [&] { k(y, x, 1.5f); });
  EXPECT_EQ(allocations, 0) << "first allocation from " << alloc_count::first_caller();
}

TEST_F(CudaRuntime, CopiesLaunchAndReadBackInOrder) {
  tack::Array x = dev_.from_host(std::vector<float>(1000, 1.0f));
  tack::Array y = dev_.from_host(std::vector<float>(1000, 2.0f));
  compile_or_skip([&] { saxpy()(y, x, 3.0f); });
  const std::vector<std::string> before_read = log_entries();
  std::vector<float> out = y.to_host<float>();
  const int launch = find_entry("launch ");
  ASSERT_GE(launch, 0) << "no launch in the log";
  EXPECT_NE(std::string(fake_cuda_log_entry(launch)).find("saxpy"), std::string::npos);
  const int up_x = find_entry("htod", 0, tack::backends::cuda::device_pointer(x));
  const int up_y = find_entry("htod", 0, tack::backends::cuda::device_pointer(y));
  const int sync = find_entry("stream_sync", launch);
  const int down = find_entry("dtoh", launch, tack::backends::cuda::device_pointer(y));
  EXPECT_LT(up_x, launch);
  EXPECT_LT(up_y, launch);
  EXPECT_GT(sync, launch) << "to_host waits for the stream";
  EXPECT_GT(down, sync) << "and then copies";
  EXPECT_EQ(out.size(), 1000u);
  // Nothing waited before the read: the launch was only queued.
  for (const auto& e : before_read) EXPECT_NE(e, "stream_sync");
}

TEST_F(CudaRuntime, LaunchGeometryAndCount) {
  for (std::int64_t n : {1, 255, 256, 257, 100000}) {
    fake_cuda_reset();
    tack::Array x = dev_.zeros(tack::DType::F32, {n}), y = dev_.zeros(tack::DType::F32, {n});
    compile_or_skip([&] { saxpy()(y, x, 1.0f); });
    auto ls = launches();
    ASSERT_EQ(ls.size(), 1u) << "n = " << n;
    const FakeCudaLaunch& l = ls[0];
    EXPECT_EQ(l.block[0], 256u) << "n = " << n;
    EXPECT_EQ(l.block[1] * l.block[2] * l.grid[1] * l.grid[2], 1u);
    EXPECT_EQ(l.grid[0], static_cast<unsigned>((n + 255) / 256)) << "n = " << n;
    EXPECT_EQ(l.shared_bytes, 0u);
    ASSERT_GE(l.param_count, 3);
    EXPECT_EQ(l.param_size[l.param_count - 1], 8u) << "__n__ is a long long";
    EXPECT_EQ(static_cast<std::int64_t>(param_u64(l, l.param_count - 1)), n) << "__n__";
    EXPECT_EQ(param_u64(l, 0), tack::backends::cuda::device_pointer(y));
    EXPECT_EQ(param_u64(l, 1), tack::backends::cuda::device_pointer(x));
  }
}

TEST_F(CudaRuntime, EachLaunchUploadsItsOwnScalarsFirst) {
  tack::Array x = dev_.zeros(tack::DType::F32, {512}), y = dev_.zeros(tack::DType::F32, {512});
  compile_or_skip([&] { saxpy()(y, x, 0.5f); });
  fake_cuda_reset();
  for (int i = 1; i <= 4; ++i) saxpy()(y, x, static_cast<float>(i));  // queued, never waited for in between
  auto ls = launches();
  ASSERT_EQ(ls.size(), 4u);
  int previous = -1;
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(pack_holds(ls[i], previous, static_cast<float>(i + 1),
                           {tack::backends::cuda::device_pointer(x), tack::backends::cuda::device_pointer(y)}))
        << "launch " << i << " does not read a pack uploaded just before it with a = " << i + 1;
    previous = ls[i].log_index;
  }
  EXPECT_EQ(find_entry("stream_sync"), -1) << "launches return without waiting";
}

TEST_F(CudaRuntime, EmptyRangeLaunchesNothing) {
  tack::Array y = dev_.zeros(tack::DType::F32, {16});
  compile_or_skip([&] { fill_n()(y, std::int64_t{4}); });
  const int before = fake_cuda_launch_count();
  fill_n()(y, std::int64_t{0});
  EXPECT_EQ(fake_cuda_launch_count(), before);
}

TEST_F(CudaRuntime, LaunchLargerThanTheGridIsRefused) {
  fake_cuda_set_attribute(5, 4);  // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: 4 blocks of 256
  tack::Device small = fresh_device();
  tack::Array y = small.zeros(tack::DType::F32, {4 * 256 + 1});
  compile_or_skip([&] { fill_n()(y, std::int64_t{4 * 256}); });
  auto ls = launches();
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].grid[0], 4u);
  try {
    fill_n()(y, std::int64_t{4 * 256 + 1});
    ADD_FAILURE() << "a launch of 5 blocks on a device of 4 was accepted";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("fill_n"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MAX_GRID_DIM_X"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fake_cuda_launch_count(), 1) << "nothing launched for the refused call";
}

TEST_F(CudaRuntime, FailedLaunchSurfacesAtTheNextWait) {
  tack::Array x = dev_.zeros(tack::DType::F32, {300}), y = dev_.zeros(tack::DType::F32, {300});
  compile_or_skip([&] { saxpy()(y, x, 2.0f); });
  dev_.synchronize();
  // The device faults while running the next launch: the driver reports it at the stream's next synchronize.
  fake_cuda_fail("cuStreamSynchronize", 719, 1);
  EXPECT_NO_THROW(saxpy()(y, x, 2.0f)) << "a launch returns before the kernel runs";
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not raise the launch failure";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("cuStreamSynchronize"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << e.what();
  }
  // The same through to_host and through tack::sync().
  fake_cuda_fail("cuStreamSynchronize", 719, 1);
  saxpy()(y, x, 2.0f);
  try {
    (void)y.to_host<float>();
    ADD_FAILURE() << "to_host did not raise the launch failure";
  } catch (const tack::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << e.what();
  }
  fake_cuda_fail("cuStreamSynchronize", 719, 1);
  EXPECT_THROW(tack::sync(), tack::BackendError);
  EXPECT_NO_THROW(dev_.synchronize()) << "the fake's fault is not sticky";
}

// TACK_WAIT_TIMEOUT_S (set through its test hook): a stream that never goes idle (cuStreamQuery and
// cuEventQuery answer CUDA_ERROR_NOT_READY, as for a kernel that loops forever) raises BackendError
// naming the kernel last queued, for Device::synchronize and for the asynchronous wait alike.
TEST_F(CudaRuntime, WaitPastTheTimeoutNamesTheLastKernel) {
  tack::Array x = dev_.zeros(tack::DType::F32, {300}), y = dev_.zeros(tack::DType::F32, {300});
  compile_or_skip([&] { saxpy()(y, x, 2.0f); });
  dev_.synchronize();
  struct Restore {
    ~Restore() {
      tack::runtime::set_wait_timeout_s(0);
      fake_cuda_fail("cuStreamQuery", 0, 0);
      fake_cuda_fail("cuEventQuery", 0, 0);
    }
  } restore;
  tack::runtime::set_wait_timeout_s(0.2);
  saxpy()(y, x, 2.0f);
  fake_cuda_fail("cuStreamQuery", 600, -1);
  fake_cuda_fail("cuEventQuery", 600, -1);
  const int syncs = fake_cuda_count("cuStreamSynchronize");
  const auto start = std::chrono::steady_clock::now();
  try {
    dev_.synchronize();
    ADD_FAILURE() << "Device::synchronize did not time out";
  } catch (const tack::BackendError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cuda: a wait for the queued work did not finish within 0.2 s (TACK_WAIT_TIMEOUT_S)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("kernel 'saxpy'"), std::string::npos) << m;
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 5.0);
  EXPECT_EQ(fake_cuda_count("cuStreamSynchronize"), syncs) << "the blocking wait is never entered";
  std::future<void> f = dev_.synchronize_async();
  EXPECT_THROW(f.get(), tack::BackendError);
  // Once the stream goes idle, the same device waits normally.
  fake_cuda_fail("cuStreamQuery", 0, 0);
  fake_cuda_fail("cuEventQuery", 0, 0);
  EXPECT_NO_THROW(dev_.synchronize());
}

TEST_F(CudaRuntime, FourThreadsKeepTheirOwnScalars) {
  constexpr int kThreads = 4;
  std::vector<tack::Array> xs, ys;
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(dev_.zeros(tack::DType::F32, {256}));
    ys.push_back(dev_.zeros(tack::DType::F32, {256}));
  }
  compile_or_skip([&] { saxpy()(ys[0], xs[0], 0.25f); });
  fake_cuda_reset();
  for (int round = 0; round < 20; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { saxpy()(ys[t], xs[t], static_cast<float>(t + 1)); });
    for (auto& th : threads) th.join();
  }
  auto ls = launches();
  ASSERT_EQ(ls.size(), 20u * kThreads);
  std::vector<std::uint64_t> arrays;
  for (int t = 0; t < kThreads; ++t) {
    arrays.push_back(tack::backends::cuda::device_pointer(xs[t]));
    arrays.push_back(tack::backends::cuda::device_pointer(ys[t]));
  }
  int previous = -1;
  for (const FakeCudaLaunch& l : ls) {
    int t = -1;
    for (int i = 0; i < kThreads; ++i)
      if (param_u64(l, 0) == tack::backends::cuda::device_pointer(ys[i])) t = i;
    ASSERT_GE(t, 0) << "a launch on an unknown array";
    EXPECT_TRUE(pack_holds(l, previous, static_cast<float>(t + 1), arrays))
        << "thread " << t << "'s launch reads another thread's scalars";
    EXPECT_EQ(param_u64(l, 1), tack::backends::cuda::device_pointer(xs[t]));
    previous = l.log_index;
  }
}

TEST_F(CudaRuntime, AThreadWithoutAContextHasNoneAfterDispatching) {
  tack::Array y = dev_.zeros(tack::DType::F32, {16});
  std::thread([&] {
    EXPECT_EQ(fake_cuda_current_context(), nullptr);
    tack::Array x = dev_.from_host(std::vector<float>(16, 1.0f));
    (void)x.to_host<float>();
    EXPECT_EQ(fake_cuda_current_context(), nullptr) << "the backend left its context current on this thread";
  }).join();
}

TEST_F(CudaRuntime, AdoptsTheCurrentContextOfItsDevice) {
  std::thread([&] {
    void* mine = fake_cuda_make_current_context(0);
    const int refs = fake_cuda_primary_refcount(0);
    {
      tack::Device d = fresh_device();
      tack::Array a = d.from_host(std::vector<float>(8, 1.0f));
      // Tack retains the primary context to tell it apart from the current one, and lets it go at once.
      EXPECT_EQ(fake_cuda_primary_refcount(0), refs) << "the primary context is held while another was adopted";
      const int at = find_entry("alloc_async");
      ASSERT_GE(at, 0);
      EXPECT_EQ(op_at(at).context, mine) << "the allocation ran in another context";
      d.synchronize();
    }
    EXPECT_EQ(fake_cuda_primary_refcount(0), refs) << "an adopted context is not Tack's to release";
    EXPECT_EQ(fake_cuda_current_context(), mine) << "the application's context is still current";
  }).join();
}

TEST_F(CudaRuntime, RetainsAndReleasesThePrimaryContext) {
  std::thread([&] {
    const int refs = fake_cuda_primary_refcount(0);
    const int streams = fake_cuda_count("cuStreamDestroy_v2");
    {
      tack::Device d = fresh_device();
      EXPECT_EQ(fake_cuda_primary_refcount(0), refs + 1);
      tack::Array a = d.from_host(std::vector<float>(8, 1.0f));
      const int at = find_entry("alloc_async");
      ASSERT_GE(at, 0);
      EXPECT_EQ(op_at(at).context, fake_cuda_primary_context(0));
    }  // the device and its last array go: the context is released, its stream destroyed
    EXPECT_EQ(fake_cuda_primary_refcount(0), refs);
    EXPECT_EQ(fake_cuda_count("cuDevicePrimaryCtxRelease_v2"), 1);
    EXPECT_EQ(fake_cuda_count("cuStreamDestroy_v2"), streams + 1);
  }).join();
}

// Tack's first device on a thread makes the primary context current there; a
// second device opened on that thread must not take it for an application's
// context and use it unretained: dropping the first would release the
// primary context under the second.
TEST_F(CudaRuntime, SecondDeviceOnAThreadKeepsThePrimaryRetained) {
  std::thread([&] {
    const int refs = fake_cuda_primary_refcount(0);
    auto first = std::make_unique<tack::Device>(fresh_device());
    tack::Device second = fresh_device();
    first.reset();
    EXPECT_GT(fake_cuda_primary_refcount(0), refs) << "the second device's primary context was released under it";
    tack::Array a = second.from_host(std::vector<float>(8, 1.0f));
    (void)a.to_host<float>();
  }).join();
}

// A device whose setup fails after the primary context was retained gives the retain back.
TEST_F(CudaRuntime, FailedOpenReleasesThePrimary) {
  std::thread([&] {
    const int refs = fake_cuda_primary_refcount(0);
    fake_cuda_fail("cuDeviceGetDefaultMemPool", 1, 1);  // CUDA_ERROR_INVALID_VALUE
    EXPECT_THROW(fresh_device(), tack::BackendError);
    EXPECT_EQ(fake_cuda_primary_refcount(0), refs) << "the failed open kept a retain of the primary context";
  }).join();
}

TEST_F(CudaRuntime, ContextWithAnotherDeviceIsNotAdopted) {
  fake_cuda_set_device_count(2);
  std::thread([&] {
    void* other = fake_cuda_make_current_context(1);
    const int refs = fake_cuda_primary_refcount(0);
    {
      tack::Device d = fresh_device();  // device 0
      EXPECT_EQ(fake_cuda_primary_refcount(0), refs + 1);
      tack::Array a = d.from_host(std::vector<float>(8, 1.0f));
      EXPECT_EQ(op_at(find_entry("alloc_async")).context, fake_cuda_primary_context(0));
    }
    EXPECT_EQ(fake_cuda_current_context(), other);
  }).join();
}

TEST_F(CudaRuntime, WithoutMemoryPoolsFreesWaitForAnIdleStream) {
  fake_cuda_set_attribute(115, 0);  // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
  tack::Device d = fresh_device();
  const int async_allocs = fake_cuda_count("cuMemAllocAsync");
  tack::Array keep = d.from_host(std::vector<float>(32, 1.0f));
  EXPECT_EQ(fake_cuda_count("cuMemAllocAsync"), async_allocs) << "memory pools are off";
  EXPECT_GE(fake_cuda_count("cuMemAlloc_v2"), 1);

  // Dropped while the stream is busy: kept until a wait.
  fake_cuda_fail("cuStreamQuery", 600, -1);  // CUDA_ERROR_NOT_READY: queued work may still read it
  std::uint64_t dropped = 0;
  {
    tack::Array a = d.from_host(std::vector<float>(32, 2.0f));
    dropped = tack::backends::cuda::device_pointer(a);
  }
  tack::Array b = d.zeros(tack::DType::F32, {32});  // an allocation with the stream busy
  EXPECT_EQ(find_entry("free", 0, dropped), -1) << "freed while queued work may use it";
  fake_cuda_fail("cuStreamQuery", 0, 0);
  d.synchronize();
  const int freed = find_entry("free", 0, dropped);
  EXPECT_GT(freed, find_entry("stream_sync")) << "the wait frees what was dropped";

  // Dropped with the stream idle: freed at the next allocation, before it.
  {
    tack::Array c = d.from_host(std::vector<float>(32, 3.0f));
    dropped = tack::backends::cuda::device_pointer(c);
  }
  EXPECT_EQ(find_entry("free", 0, dropped), -1) << "cuMemFree would wait for the whole device";
  const int allocs_before = fake_cuda_count("cuMemAlloc_v2");
  tack::Array e = d.zeros(tack::DType::F32, {32});
  EXPECT_EQ(fake_cuda_count("cuMemAlloc_v2"), allocs_before + 1);
  const int freed2 = find_entry("free", 0, dropped);
  ASSERT_GE(freed2, 0);
  EXPECT_LT(freed2, find_entry("alloc", freed2)) << "freed before the next allocation";
  EXPECT_EQ(fake_cuda_count("cuMemFreeAsync"), 0);
}

TEST_F(CudaRuntime, SumRunsOnTheDevice) {
  tack::Array x = dev_.from_host(std::vector<float>(5000, 1.0f));
  float s = -1;
  compile_or_skip([&] { s = x.sum<float>(); });
  ASSERT_EQ(fake_cuda_launch_count(), 1) << "one reduction launch";
  const FakeCudaLaunch l = launches()[0];
  // Launched as any kernel (runtime/reductions/array_reduction_kernel): x, the result, the scalar pack, then __n__, the
  // groups: ceil(5000 / 256), below the cap of 32 per multiprocessor.
  ASSERT_EQ(l.param_count, 4);
  EXPECT_EQ(param_u64(l, 0), tack::backends::cuda::device_pointer(x));
  EXPECT_EQ(param_u64(l, 3), 20u) << "__n__: the groups";
  // The fake's memory is the host's: the pack holds x's element count, 64-bit.
  EXPECT_EQ(reinterpret_cast<const std::int64_t*>(param_u64(l, 2))[0], 5000);
  EXPECT_GT(find_entry("dtoh", l.log_index), l.log_index) << "the result is read after the launch";
  EXPECT_EQ(s, 0.0f) << "the fake runs nothing: the result buffer keeps the identity";
}

TEST_F(CudaRuntime, SumOfAProgramWithoutBlocksOf256RunsOnTheHost) {
  // A program that runs fewer than 256 threads per block (too many registers) cannot run the reduction's tree:
  // the host reduces (the fake's memory is the host's, so the sum is real), and later reductions do not try again.
  // A device of its own: the shared one may hold a reduction program an earlier test built with 1024 threads.
  fake_cuda_set_function_max_threads(128);
  tack::Device dev = fresh_device();
  tack::Array x = dev.from_host(std::vector<float>(5000, 1.0f));
  float s = -1;
  compile_or_skip([&] { s = x.sum<float>(); });
  EXPECT_EQ(s, 5000.0f);
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  const int loads = fake_cuda_count("cuModuleLoadDataEx");
  EXPECT_GE(loads, 1) << "the program was built and its block limit read";
  EXPECT_EQ(x.sum<float>(), 5000.0f);
  EXPECT_EQ(fake_cuda_count("cuModuleLoadDataEx"), loads) << "declined once, not built again";
  // A workgroup kernel of the user's on the same device is still refused by name.
  auto block =
      tack::kernel("cuda_block_of_256", [](Array y) { workgroup_for(1, [&](Group g) { y[g.local_id()] = 1.0f; }); });
  tack::Array y = dev.zeros(tack::DType::F32, {256});
  EXPECT_THROW(block(y), tack::BackendError);
}

// Everything a device made is given back when the last thing holding it goes, although nothing waited: its
// stream, its memory, its kernels' modules and pack buffers, its events and its primary-context retain. Each
// count is compared with its value before the device was made: any leak shows as a difference.
TEST_F(CudaRuntime, TeardownWithQueuedWorkIsClean) {
  std::thread([&] {
    struct Counts {
      int refs, allocations, arrays, streams, events, modules;
      bool operator==(const Counts&) const = default;
    };
    auto now = [] {
      return Counts{fake_cuda_primary_refcount(0), fake_cuda_live_allocations(), fake_cuda_live_arrays(),
                    fake_cuda_live_streams(),      fake_cuda_live_events(),      fake_cuda_live_modules()};
    };
    const Counts before = now();
    {
      // A kernel of this test, which outlives the device.
      const tack::Kernel k = tack::kernel("teardown_saxpy", [](Array y, Array x, Scalar a) {
        parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
      });
      {
        tack::Device d = fresh_device();
        EXPECT_EQ(fake_cuda_primary_refcount(0), before.refs + 1) << "the device retains the primary context";
        tack::Array x = d.zeros(tack::DType::F32, {1000}), y = d.zeros(tack::DType::F32, {1000});
        EXPECT_EQ(fake_cuda_live_streams(), before.streams + 1) << "the device has a stream of its own";
        tack::Texture t = tack::texture3d(d.zeros(tack::DType::F32, {64}), {4, 4, 4});
        bool launched = true;
        try {
          k(y, x, 1.0f);
        } catch (const tack::BackendUnavailable&) {
          launched = false;  // NVRTC missing: teardown is still checked
        }
        const Counts during = now();
        EXPECT_GE(during.allocations, before.allocations + 3) << "the arrays' memory";
        if (launched) EXPECT_EQ(during.modules, before.modules + 1) << "the kernel's module for this device";
        // Dropped without a wait: the work queued, then the texture and arrays, then the device, whose variants
        // (pack buffers, modules) go with it while the kernel lives on; nothing may be misused on the way
        // (TearDown checks).
      }
    }
    const Counts after = now();
    EXPECT_EQ(after.refs, before.refs) << "primary-context retains not released";
    EXPECT_EQ(after.allocations, before.allocations) << "device memory not freed";
    EXPECT_EQ(after.arrays, before.arrays) << "3-D arrays not destroyed";
    EXPECT_EQ(after.streams, before.streams) << "streams not destroyed";
    EXPECT_EQ(after.events, before.events) << "events not destroyed";
    EXPECT_EQ(after.modules, before.modules) << "modules not unloaded";
    EXPECT_TRUE(after == before);
  }).join();
}

// The device runs out of memory mid-run (the driver refuses one allocation):
// BackendError naming the call and the size; the arrays made before keep their
// contents, and the next allocation works.
TEST_F(CudaRuntime, OutOfMemoryMidRunKeepsEarlierArrays) {
  std::vector<float> a(1000), b(333);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * static_cast<float>(i);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = -static_cast<float>(i);
  tack::Array x = dev_.from_host(a), y = dev_.from_host(b);
  fake_cuda_fail("cuMemAllocAsync", 2, 1);  // CUDA_ERROR_OUT_OF_MEMORY
  try {
    tack::Array z = dev_.empty(tack::DType::F32, {1 << 20});
    ADD_FAILURE() << "the refused allocation gave an array";
  } catch (const tack::BackendError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of device memory"), std::string::npos) << m;
    EXPECT_NE(m.find("cuMemAllocAsync"), std::string::npos) << "the call: " << m;
    EXPECT_NE(m.find(std::to_string(4 << 20) + " bytes"), std::string::npos) << "the size: " << m;
  }
  EXPECT_EQ(x.to_host<float>(), a);
  EXPECT_EQ(y.to_host<float>(), b);
  tack::Array after = dev_.from_host(b);
  EXPECT_EQ(after.to_host<float>(), b) << "the fault is not sticky";
}

// A kernel whose first build fails (the driver's PTX JIT refuses it once) is
// built again on the next call: neither the variant cache nor the disk cache
// keeps the failure, and the entry the retry stores is what a new device loads.
TEST_F(CudaRuntime, CompileThatFailsOnceSucceedsOnRetryAndCachesNoFailure) {
  // A disk cache of this test's own, on whatever the caller's TACK_CACHE says: the process's cache is configured
  // from the environment at its first compile, which is this test's when it runs in a process of its own (ctest).
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("tack-cuda-retry-" + std::to_string(::getpid()));
  struct RemovedAtTheEnd {
    std::filesystem::path dir;
    ~RemovedAtTheEnd() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);  // a later store recreates it
    }
  } removed{dir};
  tack_test::ScopedEnv cache_dir("TACK_CACHE_DIR", dir.c_str());
  tack_test::ScopedEnv cache_on("TACK_CACHE", nullptr);
  if (!tack::runtime::DiskCache::global().enabled())
    GTEST_SKIP() << "the disk cache was configured off by an earlier test of this process; run this test alone";
  // A kernel of this process alone (the name holds the pid): no earlier run's disk entry answers first.
  const std::string name = "retryonce" + std::to_string(::getpid());
  const tack::Kernel k = tack::kernel(name, [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = 2.0f; }); });
  tack::Array y = dev_.zeros(tack::DType::F32, {64});
  const std::uint64_t compiles = tack::backends::cuda::nvrtc_compile_count();
  fake_cuda_fail("cuModuleLoadDataEx", 218, 1);  // CUDA_ERROR_INVALID_PTX
  try {
    k(y);
    ADD_FAILURE() << "the first build did not fail";
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << "NVRTC is not available: " << e.what();
  } catch (const tack::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleLoadDataEx"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_INVALID_PTX"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  const int modules = fake_cuda_module_count();
  ASSERT_NO_THROW(k(y)) << "the retry must build the kernel";
  EXPECT_EQ(tack::backends::cuda::nvrtc_compile_count(), compiles + 2) << "the retry compiled again";
  ASSERT_EQ(fake_cuda_module_count(), modules + 1);
  const std::string ptx = fake_cuda_module_ptx(modules);
  ASSERT_EQ(fake_cuda_launch_count(), 1);
  EXPECT_EQ(launches()[0].name, "tack_kernel_" + name);
  // A new device (a variant cache of its own) loads the retry's PTX from disk, with no compile.
  const std::uint64_t loads = tack::backends::cuda::ptx_cache_load_count();
  tack::Device other = fresh_device();
  k(other.zeros(tack::DType::F32, {64}));
  EXPECT_EQ(tack::backends::cuda::ptx_cache_load_count(), loads + 1) << "the retry's entry is on disk";
  EXPECT_EQ(tack::backends::cuda::nvrtc_compile_count(), compiles + 2);
  ASSERT_EQ(fake_cuda_module_count(), modules + 2);
  EXPECT_EQ(std::string(fake_cuda_module_ptx(modules + 1)), ptx) << "the cached PTX is the one the retry built";
}

TEST(CudaFakeDriver, ExportsEveryEntryTheTableResolves) {
  void* fake = dlopen(TACK_FAKE_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr) << dlerror();
  const tack::drivers::cu::Api& api = tack::backends::cuda::driver::api();
  EXPECT_EQ(api.library, std::getenv("TACK_CUDA_LIBRARY"));
  // Every function pointer in the table is set and is the fake's.
  for (const char* name : {"cuInit", "cuLaunchKernel", "cuMemAllocAsync", "cuMemcpyHtoDAsync_v2", "cuMemCreate",
                           "cuTexObjectCreate", "cuMemExportToShareableHandle"})
    EXPECT_NE(dlsym(fake, name), nullptr) << name;
  tack_test::expect_every_entry_from_the_fake(api, "tack_fake_cuda");
}

}  // namespace

int main(int argc, char** argv) {
  return tack_test::run_tests_over_the_fake(argc, argv, "TACK_CUDA_LIBRARY", TACK_FAKE_CUDA_LIBRARY);
}
