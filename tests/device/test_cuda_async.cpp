// The cuda backend's queue on a real GPU: launches, fills, copies and frees are
// queued on one stream and return, so these check what only a device that
// really runs behind the host can show: order across launches and fills, each
// launch's own scalars, host uploads while a long kernel runs, temporaries
// dropped before the work that reads them has run, the waits, and four threads
// dispatching one variant, and sharing the primary context with another
// library (test_cuda_shared_memory.cpp adds the shared buffers). Without a CUDA
// device every test skips with the reason (tests/device/run_cuda.sh runs them on a lent GPU machine).
#include "device/cuda_device_test.hpp"

#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_memory.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace tack::lang;

const tack::Kernel& axpy() {
  static const tack::Kernel k = tack::kernel(
      "axpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}
const tack::Kernel& add_scalar() {
  static const tack::Kernel k =
      tack::kernel("add_scalar", [](Array y, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] + a; }); });
  return k;
}

using CudaAsync = CudaDeviceTest;

constexpr std::int64_t kN = 1 << 20;

TEST_F(CudaAsync, OrderAcrossLaunchesAndFills) {
  tack::Array y = dev_.zeros(tack::DType::F32, {kN});
  for (int round = 0; round < 20; ++round) {
    add_scalar()(y, 1.0f);
    y.fill(10.0f * static_cast<float>(round));  // a fill queued between launches
    add_scalar()(y, 2.0f);
    add_scalar()(y, 3.0f);
  }
  std::vector<float> out = y.to_host<float>();
  EXPECT_EQ(std::count(out.begin(), out.end(), 190.0f + 5.0f), kN) << "out[0] = " << out[0];
}

TEST_F(CudaAsync, EachLaunchReadsItsOwnScalars) {
  tack::Array x = dev_.from_host(std::vector<float>(kN, 1.0f));
  tack::Array y = dev_.zeros(tack::DType::F32, {kN});
  for (int a = 1; a <= 100; ++a) axpy()(y, x, static_cast<float>(a));  // never waited for in between
  std::vector<float> out = y.to_host<float>();
  EXPECT_EQ(std::count(out.begin(), out.end(), 5050.0f), kN) << "out[0] = " << out[0] << ", out[last] = " << out.back();
}

TEST_F(CudaAsync, HostUploadsWhileAKernelRuns) {
  tack::Array busy = dev_.zeros(tack::DType::F32, {kN});
  spin()(busy, std::int64_t{20000});  // queued; the host goes on at once
  std::vector<tack::Array> uploads;
  for (int k = 0; k < 16; ++k) uploads.push_back(dev_.from_host(std::vector<float>(4096, static_cast<float>(k))));
  for (int k = 0; k < 16; ++k) add_scalar()(uploads[k], 0.5f);
  for (int k = 0; k < 16; ++k) {
    std::vector<float> got = uploads[k].to_host<float>();
    EXPECT_EQ(std::count(got.begin(), got.end(), static_cast<float>(k) + 0.5f), 4096) << "upload " << k;
  }
  std::vector<float> spun = busy.to_host<float>();
  EXPECT_EQ(std::count(spun.begin(), spun.end(), 2.0f), kN);
}

TEST_F(CudaAsync, TemporariesDroppedBeforeTheirLaunchRuns) {
  tack::Array y = dev_.zeros(tack::DType::F32, {kN});
  spin()(dev_.zeros(tack::DType::F32, {kN}), std::int64_t{5000});  // keeps the stream busy; dropped at once
  for (int k = 1; k <= 50; ++k) {
    tack::Array temp = dev_.from_host(std::vector<float>(kN, static_cast<float>(k)));
    axpy()(y, temp, 1.0f);
  }  // each temp is dropped while its launch may still be queued
  // New allocations may reuse the dropped memory only after the launches that read it.
  std::vector<tack::Array> churn;
  for (int k = 0; k < 8; ++k) churn.push_back(dev_.from_host(std::vector<float>(kN, -1000.0f)));
  std::vector<float> out = y.to_host<float>();
  EXPECT_EQ(std::count(out.begin(), out.end(), 1275.0f), kN) << "out[0] = " << out[0];
}

TEST_F(CudaAsync, Waits) {
  tack::Array y = dev_.zeros(tack::DType::F32, {kN});
  spin()(y, std::int64_t{2000});
  add_scalar()(y, 1.0f);
  std::future<std::vector<float>> later = y.to_host_async<float>();
  add_scalar()(y, 1.0f);  // after the mark: not part of `later`
  std::vector<float> got = later.get();
  EXPECT_EQ(std::count(got.begin(), got.end(), 3.0f), kN);
  dev_.synchronize();
  EXPECT_EQ(y.read_range<float>(kN - 1, 1), std::vector<float>{4.0f});
  add_scalar()(y, 1.0f);
  dev_.synchronize_async().get();
  add_scalar()(y, 1.0f);
  tack::sync();
  EXPECT_EQ(y.read_range<float>(0, 1), std::vector<float>{6.0f});
  EXPECT_EQ(y.sum<float>(), 6.0f * static_cast<float>(kN));
}

TEST_F(CudaAsync, FourThreadsDispatchOneVariant) {
  constexpr int kThreads = 4, kLaunches = 200;
  std::vector<tack::Array> xs, ys;
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(dev_.from_host(std::vector<float>(65536, 1.0f)));
    ys.push_back(dev_.zeros(tack::DType::F32, {65536}));
  }
  axpy()(ys[0], xs[0], 0.0f);  // compiled once, before the threads start
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLaunches; ++i) axpy()(ys[t], xs[t], static_cast<float>(t + 1));
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    std::vector<float> out = ys[t].to_host<float>();
    const float expect = static_cast<float>(kLaunches * (t + 1));
    EXPECT_EQ(std::count(out.begin(), out.end(), expect), 65536) << "thread " << t << ": out[0] = " << out[0];
  }
}

// Another library (the CUDA runtime, PyTorch, CuPy) works in the device's primary context and made it current
// on its thread. A device made there shares that context: Tack's memory is valid in the library's calls, and
// the thread's current context is left as the library set it.
TEST_F(CudaAsync, SharesThePrimaryContextWithAnotherLibrary) {
  namespace cu = tack::backends::cuda::driver;
  std::thread([&] {
    const cu::Api& api = cu::api();
    cu::CUdevice device = 0;
    ASSERT_EQ(api.cuDeviceGet(&device, 0), cu::CUDA_SUCCESS);
    cu::CUcontext primary = nullptr;
    ASSERT_EQ(api.cuDevicePrimaryCtxRetain(&primary, device), cu::CUDA_SUCCESS);
    ASSERT_EQ(api.cuCtxSetCurrent(primary), cu::CUDA_SUCCESS);
    {
      tack::Device d = tack::device("cuda", {{"device", std::int64_t{0}}});  // a new backend, made on this thread
      tack::Array y = d.from_host(std::vector<float>(1024, 1.0f));
      add_scalar()(y, 2.0f);
      d.synchronize();
      std::vector<float> seen(1024);
      // The library reads Tack's array with its own call, in its own (the primary) context.
      ASSERT_EQ(api.cuMemcpyDtoH_v2(seen.data(), tack::backends::cuda::device_pointer(y), 4096), cu::CUDA_SUCCESS);
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 3.0f), 1024);
      cu::CUcontext current = nullptr;
      ASSERT_EQ(api.cuCtxGetCurrent(&current), cu::CUDA_SUCCESS);
      EXPECT_EQ(current, primary) << "Tack changed the library's current context";
    }
    api.cuCtxSetCurrent(nullptr);
    api.cuDevicePrimaryCtxRelease_v2(device);
  }).join();
}

}  // namespace
