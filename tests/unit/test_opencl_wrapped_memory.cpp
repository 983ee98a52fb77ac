// Memory outside Tack on the opencl backend (PoCL here): tack::array_from_ptr
// and tack::from_dlpack wrap a cl_mem buffer of the device's context, which
// the test makes with the OpenCL API; a launch that binds it completes before
// returning, and the buffer is never released by Tack (the refusals are in
// tests/errors/shared_memory.cpp). Every test skips where tack::device("opencl")
// is unavailable.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "backends/opencl/opencl_device.hpp"
#include "drivers/opencl_api.hpp"
#include "support/opencl_device_test.hpp"

#include <cstdint>
#include <memory>
#include <vector>

using namespace tack::lang;
namespace cl = tack::drivers::cl;

namespace {

constexpr cl::cl_mem_flags kCopyHostPtr = 1 << 5;  // CL_MEM_COPY_HOST_PTR
constexpr cl::cl_uint kReferenceCount = 0x1105;    // CL_MEM_REFERENCE_COUNT

class OpenCLWrappedMemory : public tack_test::OpenCLDeviceTest {
 protected:
  void SetUp() override {
    OpenCLDeviceTest::SetUp();
    if (IsSkipped()) return;
    api_ = cl::load(nullptr);
    ASSERT_NE(api_, nullptr);
    // The device's context, as a library handed one of its buffers (Array::share()) would find it.
    tack::Array probe = dev_.zeros(tack::DType::F32, {1});
    auto mem = reinterpret_cast<cl::cl_mem>(probe.share().handle);
    ASSERT_EQ(api_->clGetMemObjectInfo(mem, cl::CL_MEM_CONTEXT, sizeof context_, &context_, nullptr), cl::CL_SUCCESS);
  }
  void TearDown() override {
    for (cl::cl_mem m : made_) api_->clReleaseMemObject(m);
  }

  // A buffer of the device's context (or `context`) holding `values`, released by the fixture.
  cl::cl_mem buffer(const std::vector<float>& values, cl::cl_context context = nullptr) {
    cl::cl_int err = 0;
    std::vector<float> copy = values;
    cl::cl_mem m = api_->clCreateBuffer(context ? context : context_, cl::CL_MEM_READ_WRITE | kCopyHostPtr,
                                        copy.size() * sizeof(float), copy.data(), &err);
    EXPECT_EQ(err, cl::CL_SUCCESS);
    made_.push_back(m);
    return m;
  }
  cl::cl_uint references(cl::cl_mem m) const {
    cl::cl_uint n = 0;
    EXPECT_EQ(api_->clGetMemObjectInfo(m, kReferenceCount, sizeof n, &n, nullptr), cl::CL_SUCCESS);
    return n;
  }

  const cl::Api* api_ = nullptr;
  cl::cl_context context_ = nullptr;
  std::vector<cl::cl_mem> made_;
};

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
  return v;
}

TEST_F(OpenCLWrappedMemory, ALaunchOnAWrappedBufferWritesItAndCompletesBeforeReturning) {
  constexpr int n = 1024, rounds = 20000;
  cl::cl_mem mem = buffer(iota(n));
  auto held = std::make_shared<int>(0);
  tack::Array a = tack::array_from_ptr(dev_, reinterpret_cast<std::uintptr_t>(mem), tack::DType::F32, {n}, held);
  EXPECT_TRUE(a.shared());
  EXPECT_EQ(a.share().handle, reinterpret_cast<std::uintptr_t>(mem));
  // Long enough on PoCL that a queued launch would still be running when the read below starts.
  auto k = tack::kernel("opencl_wrapped_count", [](Array x, Scalar count) {
    parallel_for(x.size(), [&](Index i) {
      Var s = x[i];
      for_range(0, count, [&](Index) { s += 1.0f; });
      x[i] = s;
    });
  });
  k(a, rounds);
  // A queue of the test's own, which nothing orders after Tack's: the launch must have completed already.
  cl::cl_int err = 0;
  cl::cl_command_queue own =
      api_->clCreateCommandQueue(context_, tack::backends::opencl::choose_device({}).device, 0, &err);
  ASSERT_EQ(err, cl::CL_SUCCESS);
  std::vector<float> seen(n);
  ASSERT_EQ(api_->clEnqueueReadBuffer(own, mem, cl::CL_TRUE, 0, n * sizeof(float), seen.data(), 0, nullptr, nullptr),
            cl::CL_SUCCESS);
  api_->clReleaseCommandQueue(own);
  for (int i = 0; i < n; ++i) ASSERT_EQ(seen[i], static_cast<float>(i + rounds)) << i;
  EXPECT_EQ(a.to_host<float>(), seen);
}

TEST_F(OpenCLWrappedMemory, TheArrayReadsAndWritesLikeAnyOther) {
  cl::cl_mem mem = buffer(iota(8));
  tack::Array a = tack::array_from_ptr(dev_, reinterpret_cast<std::uintptr_t>(mem), tack::DType::F32, {2, 4});
  EXPECT_EQ(a.to_host<float>(), iota(8));
  a.fill(2.5f);
  EXPECT_EQ(a.to_host<float>(), std::vector<float>(8, 2.5f));
  tack::Array b = dev_.from_host(iota(8));
  auto add = tack::kernel("opencl_wrapped_add",
                          [](Array y, Array x) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] + x[i]; }); });
  add(a, b);
  std::vector<float> want = iota(8);
  for (float& v : want) v += 2.5f;
  EXPECT_EQ(a.to_host<float>(), want);
}

TEST_F(OpenCLWrappedMemory, TheBufferOutlivesTheArrayAndKeepAliveIsReleasedWithIt) {
  cl::cl_mem mem = buffer(iota(4));
  const cl::cl_uint before = references(mem);
  auto held = std::make_shared<int>(0);
  std::weak_ptr<int> watch = held;
  {
    tack::Array a =
        tack::array_from_ptr(dev_, reinterpret_cast<std::uintptr_t>(mem), tack::DType::F32, {4}, std::move(held));
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(references(mem), before);  // not released: the fixture's reference is still the only one
}

TEST_F(OpenCLWrappedMemory, DLPackImportWrapsAnExportedBuffer) {
  tack::Array a = dev_.from_host(iota(6));
  tack::Array b = tack::from_dlpack(a.to_dlpack());
  EXPECT_TRUE(b.shared());
  EXPECT_EQ(b.share().handle, a.share().handle);
  b.fill(7.0f);
  EXPECT_EQ(a.to_host<float>(), std::vector<float>(6, 7.0f));
}

}  // namespace
