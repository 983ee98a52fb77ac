// Memory outside Tack on the level_zero backend, over the stand-in loader:
// tack::array_from_ptr and tack::from_dlpack wrap USM device or shared memory
// of the backend's context and device; a launch that binds it completes before
// returning, Tack never frees it, and host memory, another context's or
// device's memory and an allocation shorter than the array are refused. Linked
// into tack_level_zero_runtime_tests.
#include "support/fake_level_zero/fake_level_zero.hpp"

#include "backends/level_zero/level_zero_memory.hpp"
#include "drivers/level_zero_api.hpp"
#include "errors/error_helpers.hpp"
#include "support/borrowed_tensor.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace l0 = tack::backends::level_zero;
namespace ze = tack::drivers::ze;
using namespace tack::lang;

class LevelZeroWrappedMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ze_reset();
    dev_ = tack::device("level_zero");
    api_ = ze::load(nullptr);
    ASSERT_NE(api_, nullptr);
    tack::Array probe = dev_.zeros(tack::DType::F32, {1});
    context_ = fake_ze_context_of(l0::device_pointer(probe));
    ASSERT_NE(context_, nullptr);
  }
  void TearDown() override {
    for (auto [context, p] : made_) EXPECT_EQ(api_->zeMemFree(context, p), ze::ZE_RESULT_SUCCESS);
    EXPECT_STREQ(fake_ze_misuse(), "") << "the backend misused the driver";
    fake_ze_reset();
  }

  // `kind` memory ("device", "shared", "shared_any", "host") of `bytes`, freed by the fixture.
  void* alloc(const std::string& kind, std::size_t bytes, ze::ze_context_handle_t context = nullptr,
              ze::ze_device_handle_t device = nullptr) {
    context = context ? context : context_;
    device = device ? device : fake_ze_device(0);
    ze::ze_device_mem_alloc_desc_t dd{ze::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    ze::ze_host_mem_alloc_desc_t hd{ze::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
    void* p = nullptr;
    ze::ze_result_t r = kind == "device" ? api_->zeMemAllocDevice(context, &dd, bytes, 64, device, &p)
                        : kind == "host"
                            ? api_->zeMemAllocHost(context, &hd, bytes, 64, &p)
                            : zeMemAllocShared(context, &dd, &hd, bytes, 64, kind == "shared" ? device : nullptr, &p);
    EXPECT_EQ(r, ze::ZE_RESULT_SUCCESS);
    made_.emplace_back(context, p);
    return p;
  }
  int count(const char* entry) const {
    int n = 0;
    for (int i = 0; i < fake_ze_log_size(); ++i) n += std::string(fake_ze_log_entry(i)) == entry;
    return n;
  }

  tack::Device dev_;
  const ze::Api* api_ = nullptr;
  ze::ze_context_handle_t context_ = nullptr;
  std::vector<std::pair<ze::ze_context_handle_t, void*>> made_;
};

TEST_F(LevelZeroWrappedMemory, WrapsDeviceAndSharedMemoryAndALaunchOnItCompletesBeforeReturning) {
  auto k = tack::kernel("l0_wrapped_scale", [](Array x) { parallel_for(x.size(), [&](Index i) { x[i] = x[i] * 2; }); });
  for (const char* kind : {"device", "shared", "shared_any"}) {
    SCOPED_TRACE(kind);
    auto* p = static_cast<float*>(alloc(kind, 64 * sizeof(float)));
    for (int i = 0; i < 64; ++i) p[i] = static_cast<float>(i);  // the fake's memory is host memory
    auto held = std::make_shared<int>(0);
    std::weak_ptr<int> watch = held;
    {
      tack::Array a = tack::array_from_ptr(dev_, p + 16, tack::DType::F32, {4, 8}, std::move(held));
      EXPECT_TRUE(a.shared());
      EXPECT_EQ(l0::device_pointer(a), p + 16);
      const int syncs = count("list_sync") + count("event_sync");
      k(a);
      EXPECT_GT(count("list_sync") + count("event_sync"), syncs) << "the launch was only queued";
      a.fill(3.0f);
      EXPECT_EQ(p[16], 3.0f);
      EXPECT_EQ(p[15], 15.0f);
      EXPECT_EQ(a.to_host<float>(), std::vector<float>(32, 3.0f));
    }
    EXPECT_TRUE(watch.expired()) << "keep_alive is released with the array";
    for (int i = 0; i < fake_ze_log_size(); ++i) {
      FakeZeOp op{};
      ASSERT_TRUE(fake_ze_log_op(i, &op));
      const std::string e = fake_ze_log_entry(i);
      EXPECT_FALSE((e == "free" || e == "free_defer") && op.dst == p) << "Tack freed memory it did not allocate";
    }
  }
}

TEST_F(LevelZeroWrappedMemory, DLPackImportOfAOneApiTensor) {
  auto* p = static_cast<float*>(alloc("device", 8 * sizeof(float)));
  tack_test::BorrowedTensor t(p, 14, 8);  // kDLOneAPI
  {
    tack::Array a = tack::from_dlpack(&t.m);
    EXPECT_EQ(a.device().name(), "level_zero");
    a.fill(5.0f);
    EXPECT_EQ(p[7], 5.0f);
  }
  EXPECT_EQ(t.deleted, 1);
}

TEST_F(LevelZeroWrappedMemory, Refusals) {
  void* host = alloc("host", 64);
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, host, tack::DType::F32, {4}), tack::InvalidArgument,
                    "is Level Zero host memory; pass USM device or shared memory of the device");
  std::vector<float> pageable(4);
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, pageable.data(), tack::DType::F32, {4}), tack::InvalidArgument,
                    "is not Level Zero memory of this device's context (");
  ze::ze_context_desc_t cd{ze::ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze::ze_context_handle_t other = nullptr;
  ASSERT_EQ(api_->zeContextCreate(nullptr, &cd, &other), ze::ZE_RESULT_SUCCESS);
  void* theirs = alloc("device", 64, other);
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, theirs, tack::DType::F32, {4}), tack::InvalidArgument,
                    "is not Level Zero memory of this device's context");
  void* elsewhere = alloc("device", 64, nullptr, fake_ze_device(1));
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, elsewhere, tack::DType::F32, {4}), tack::InvalidArgument,
                    "is Level Zero memory of another device than this one");
  auto* mine = static_cast<float*>(alloc("device", 64));
  EXPECT_TACK_ERROR(tack::array_from_ptr(dev_, mine + 8, tack::DType::F32, {9}), tack::InvalidArgument,
                    "has 32 bytes from there, but the array needs 36");
  api_->zeContextDestroy(other);  // the fake frees `theirs` without it
}

}  // namespace
