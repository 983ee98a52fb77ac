// The fault "a device goes away while work is queued" (docs/reliability.md):
// simulated on the opencl backend by replacing entries of the driver table
// (drivers::cl::api_for_tests) with functions that report what a lost device
// reports, CL_DEVICE_NOT_AVAILABLE or CL_OUT_OF_RESOURCES. Launches already
// queued return normally; the next wait of any kind raises tack::BackendError
// naming the call and the error; nothing crashes at teardown; once the driver
// answers again, the same backend works. Skipped where OpenCL is unavailable.
#include "drivers/opencl_api.hpp"
#include "errors/error_helpers.hpp"
#include "support/opencl_device_test.hpp"

#include <tack/tack.hpp>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {
namespace cl = tack::drivers::cl;
using namespace tack::lang;

cl::Api g_real;  // the table as loaded, while a fault is injected

// Each fake first makes the real call, so that PoCL's queue stays consistent
// (its commands complete and read nothing freed), then fails as a lost device does.
cl::cl_int lost_finish(cl::cl_command_queue q) {
  g_real.clFinish(q);
  return cl::CL_DEVICE_NOT_AVAILABLE;
}
cl::cl_int lost_read(cl::cl_command_queue q, cl::cl_mem, cl::cl_bool, std::size_t, std::size_t, void*, cl::cl_uint,
                     const cl::cl_event*, cl::cl_event*) {
  g_real.clFinish(q);
  return cl::CL_OUT_OF_RESOURCES;
}
cl::cl_int lost_wait(cl::cl_uint n, const cl::cl_event* events) {
  g_real.clWaitForEvents(n, events);
  return cl::CL_DEVICE_NOT_AVAILABLE;
}
cl::cl_int lost_launch(cl::cl_command_queue, cl::cl_kernel, cl::cl_uint, const std::size_t*, const std::size_t*,
                       const std::size_t*, cl::cl_uint, const cl::cl_event*, cl::cl_event*) {
  return cl::CL_OUT_OF_RESOURCES;
}

// Buffers and events (the waits' markers) made and not yet released, while the counting entries below are in
// the table: what a teardown must give back even when every wait fails.
std::mutex g_live_mutex;
std::set<void*> g_live;
void note_made(void* handle) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  if (handle) g_live.insert(handle);
}
void note_released(void* handle) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live.erase(handle);
}
std::size_t live_count() {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  return g_live.size();
}
cl::cl_mem counted_create_buffer(cl::cl_context c, cl::cl_mem_flags f, std::size_t n, void* host, cl::cl_int* err) {
  cl::cl_mem m = g_real.clCreateBuffer(c, f, n, host, err);
  note_made(m);
  return m;
}
cl::cl_int counted_release_mem(cl::cl_mem m) {
  note_released(m);
  return g_real.clReleaseMemObject(m);
}
cl::cl_int counted_marker(cl::cl_command_queue q, cl::cl_uint n, const cl::cl_event* wait, cl::cl_event* out) {
  const cl::cl_int err = g_real.clEnqueueMarkerWithWaitList(q, n, wait, out);
  if (err == cl::CL_SUCCESS && out) note_made(*out);
  return err;
}
cl::cl_int counted_release_event(cl::cl_event e) {
  note_released(e);
  return g_real.clReleaseEvent(e);
}

const tack::Kernel scale = tack::kernel(
    "scale", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i]; }); });

class DeviceLost : public tack_test::OpenCLDeviceTest {
 protected:
  void SetUp() override {
    OpenCLDeviceTest::SetUp();
    if (IsSkipped()) return;
    dev_.synchronize();
    g_real = *cl::api_for_tests();
    saved_ = true;
  }
  void TearDown() override { restore(); }

  // The device is lost: every wait fails (launches still enqueue, as drivers
  // accept commands until they next look at the device).
  void lose() {
    cl::Api& t = *cl::api_for_tests();
    t.clFinish = lost_finish;
    t.clEnqueueReadBuffer = lost_read;
    t.clWaitForEvents = lost_wait;
  }
  void restore() {
    if (saved_) *cl::api_for_tests() = g_real;
  }
  // The driver answers again; other replaced entries stay.
  void found() {
    cl::Api& t = *cl::api_for_tests();
    t.clFinish = g_real.clFinish;
    t.clEnqueueReadBuffer = g_real.clEnqueueReadBuffer;
    t.clWaitForEvents = g_real.clWaitForEvents;
  }
  // Buffers and markers are tracked from now on (live_count()).
  void count_handles() {
    g_live.clear();
    cl::Api& t = *cl::api_for_tests();
    t.clCreateBuffer = counted_create_buffer;
    t.clReleaseMemObject = counted_release_mem;
    t.clEnqueueMarkerWithWaitList = counted_marker;
    t.clReleaseEvent = counted_release_event;
  }

  bool saved_ = false;
};

TEST_F(DeviceLost, QueuedLaunchReturnsAndEveryWaitRaises) {
  tack::Array x = dev_.from_host(std::vector<float>(1000, 1.5f));  // a staged (queued) write
  tack::Array y = dev_.zeros(tack::DType::F32, {1000});
  scale(y, x, 2.0f);  // queued before the loss
  lose();
  scale(y, x, 3.0f);  // queued after it: the driver has not looked yet
  EXPECT_TACK_ERROR(dev_.synchronize(), tack::BackendError, "clFinish failed", "CL_DEVICE_NOT_AVAILABLE (-2)");
  EXPECT_TACK_ERROR(tack::sync(), tack::BackendError, "clFinish failed", "CL_DEVICE_NOT_AVAILABLE");
  EXPECT_TACK_ERROR(y.to_host<float>(), tack::BackendError, "clEnqueueReadBuffer failed", "CL_OUT_OF_RESOURCES (-5)");
  EXPECT_TACK_ERROR(y.sum<float>(), tack::BackendError, "CL_OUT_OF_RESOURCES");
  EXPECT_TACK_ERROR(y.max<float>(), tack::BackendError, "CL_OUT_OF_RESOURCES");
  // The asynchronous waits report it through their futures.
  EXPECT_TACK_ERROR(dev_.synchronize_async().get(), tack::BackendError, "clWaitForEvents failed",
                    "CL_DEVICE_NOT_AVAILABLE");
  EXPECT_TACK_ERROR(y.to_host_async<float>().get(), tack::BackendError, "CL_DEVICE_NOT_AVAILABLE");
}

TEST_F(DeviceLost, LaunchAfterTheDriverNoticedRaisesAtTheLaunch) {
  tack::Array x = dev_.from_host(std::vector<float>(64, 1.0f));
  tack::Array y = dev_.zeros(tack::DType::F32, {64});
  scale(y, x, 2.0f);  // compiled and run while the device is there
  // Finished before the loss: PoCL builds a kernel's code at its first launch, in a thread of its own, and a
  // process that exits during that build can crash in PoCL's LLVM (see opencl_queue.cpp).
  dev_.synchronize();
  lose();
  cl::api_for_tests()->clEnqueueNDRangeKernel = lost_launch;
  EXPECT_TACK_ERROR(scale(y, x, 2.0f), tack::BackendError, "clEnqueueNDRangeKernel of", "scale",
                    "CL_OUT_OF_RESOURCES (-5)");
}

// Nothing crashes, and the teardown gives back every buffer and marker it made, although every wait failed.
TEST_F(DeviceLost, TeardownDuringTheLossDoesNotCrash) {
  {
    // The kernel's variant (and what it keeps for its launches) made before counting.
    tack::Array v = dev_.zeros(tack::DType::F32, {256}), w = dev_.zeros(tack::DType::F32, {256});
    scale(w, v, 1.0f);
    dev_.synchronize();
  }
  count_handles();
  lose();
  {
    // Arrays, staged writes, queued launches and unwaited futures all dropped while waits fail.
    tack::Array x = dev_.from_host(std::vector<float>(256, 1.0f));
    tack::Array y = dev_.zeros(tack::DType::F32, {256});
    scale(y, x, 2.0f);
    std::future<void> dropped = dev_.synchronize_async();
    std::future<std::vector<float>> also_dropped = y.to_host_async<float>();
    EXPECT_GE(live_count(), 2u) << "the counting entries see the arrays' buffers";
  }
  found();
  dev_.synchronize();
  // The dropped futures' markers are released by the tack-wait threads, which may still be at them: a bounded wait.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (live_count() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(live_count(), 0u) << "buffers or markers made during the loss were not released within 10 s";
  restore();
}

TEST_F(DeviceLost, SameBackendWorksOnceTheDriverAnswersAgain) {
  tack::Array x = dev_.from_host(std::vector<float>(300, 2.0f));
  tack::Array y = dev_.zeros(tack::DType::F32, {300});
  lose();
  scale(y, x, 2.0f);
  EXPECT_THROW(dev_.synchronize(), tack::BackendError);
  restore();
  // Tack keeps no "lost" state: the error was the wait's, and the next calls
  // go to the driver again (a really lost device keeps failing them, cleanly).
  dev_.synchronize();
  scale(y, x, 3.0f);
  EXPECT_EQ(y.to_host<float>(), std::vector<float>(300, 6.0f));
  EXPECT_EQ(y.sum<float>(), 1800.0f);
  EXPECT_TRUE(tack::device("opencl") == dev_);
}

}  // namespace
