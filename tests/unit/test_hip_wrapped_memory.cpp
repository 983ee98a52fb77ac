// Memory outside Tack on the hip backend, over the stand-in runtime:
// tack::array_from_ptr and tack::from_dlpack (kDLROCM) wrap device memory of
// the backend's device, checked with hipPointerGetAttribute and
// hipMemGetAddressRange; the array is shared (a fill on it completes before
// returning), Tack never frees it, and host memory, another device's and an
// allocation shorter than the array are refused. Linked into
// tack_hip_runtime_tests.
#include "support/fake_hip/fake_hip.hpp"

#include "backends/hip/hip_memory.hpp"
#include "drivers/hip_api.hpp"
#include "errors/error_helpers.hpp"
#include "runtime/memory/access.hpp"
#include "support/borrowed_tensor.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace hp = tack::drivers::hip;

int count_of(const std::vector<std::string>& calls, const std::string& name) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), name));
}

class HipWrappedMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = tack::device("hip");
    api_ = hp::load(nullptr);
    ASSERT_NE(api_, nullptr);
  }
  void TearDown() override {
    for (void* p : made_) api_->hipFree(p);
  }
  // Device memory of the fake's device `ordinal`, freed by the fixture.
  float* alloc(std::size_t count, int ordinal = 0) {
    int was = 0;
    api_->hipGetDevice(&was);
    api_->hipSetDevice(ordinal);
    void* p = nullptr;
    EXPECT_EQ(api_->hipMalloc(&p, count * sizeof(float)), hp::hipSuccess);
    api_->hipSetDevice(was);
    made_.push_back(p);
    return static_cast<float*>(p);
  }

  tack::Device dev_;
  const hp::Api* api_ = nullptr;
  std::vector<void*> made_;
};

TEST_F(HipWrappedMemory, WrapsDeviceMemoryAsASharedArrayAndNeverFreesIt) {
  float* p = alloc(64);
  for (int i = 0; i < 64; ++i) p[i] = static_cast<float>(i);  // the fake's device memory is host memory
  auto held = std::make_shared<int>(0);
  std::weak_ptr<int> watch = held;
  fake_hip::take_calls();
  {
    tack::Array a = tack::array_from_ptr(dev_, p + 8, tack::DType::F32, {2, 8}, std::move(held));
    EXPECT_TRUE(a.shared());
    EXPECT_EQ(tack::backends::hip::device_pointer(*tack::detail::Access::storage(a)), p + 8);
    EXPECT_EQ(a.share().handle, reinterpret_cast<std::uintptr_t>(p + 8));
    std::vector<float> want(16);
    for (int i = 0; i < 16; ++i) want[i] = static_cast<float>(i + 8);
    EXPECT_EQ(a.to_host<float>(), want);
    fake_hip::take_calls();
    a.fill(4.0f);
    EXPECT_GE(count_of(fake_hip::take_calls(), "hipEventSynchronize"), 1) << "a shared fill completes";
    EXPECT_EQ(p[8], 4.0f);
    EXPECT_EQ(p[23], 4.0f);
    EXPECT_EQ(p[24], 24.0f);
  }
  EXPECT_TRUE(watch.expired()) << "keep_alive is released with the array";
  const std::vector<std::string> calls = fake_hip::take_calls();
  EXPECT_EQ(count_of(calls, "hipFree") + count_of(calls, "hipFreeAsync"), 0) << "Tack freed memory it did not own";
  EXPECT_EQ(fake_hip::state().live.count(p), 1u);
}

TEST_F(HipWrappedMemory, DLPackImportOfARocmTensor) {
  float* p = alloc(8);
  tack_test::BorrowedTensor t(p, kDLROCM, 8);
  {
    tack::Array a = tack::from_dlpack(&t.m);
    EXPECT_EQ(a.device().name(), "hip");
    a.fill(5.0f);
    EXPECT_EQ(p[7], 5.0f);
    EXPECT_EQ(t.deleted, 0);
  }
  EXPECT_EQ(t.deleted, 1);
}

TEST_F(HipWrappedMemory, Refusals) {
  std::vector<float> host(4);
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, host.data(), tack::DType::F32, {4}), tack::InvalidArgument,
                    "is not HIP device memory (hipPointerGetAttribute: ");
  fake_hip::state().device_count = 2;
  float* elsewhere = alloc(4, 1);
  fake_hip::state().device_count = 1;
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, elsewhere, tack::DType::F32, {4}), tack::InvalidArgument,
                    "is memory of HIP device 1, not of this device (0, Fake AMD GPU)");
  float* mine = alloc(16);
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, mine + 8, tack::DType::F32, {9}), tack::InvalidArgument,
                    "has 32 bytes from there, but the array needs 36");
}

}  // namespace
