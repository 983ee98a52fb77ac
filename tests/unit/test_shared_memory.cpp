// Memory crossing Tack's edge on the host devices (cpu, interp): share() hands
// out the array's own memory, array_from_ptr runs kernels over the caller's
// memory in place and holds its owner only while needed, and wrapped arrays that
// may overlap never get the noalias variant. The cuda side is
// test_cuda_shared_memory.cpp.
#include "runtime/memory/access.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/kernels/signature.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;

const tack::Kernel& axpy() {
  static const tack::Kernel k = tack::kernel("shared_axpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  return k;
}

class HostSharedMemory : public ::testing::TestWithParam<std::string> {
 protected:
  tack::Device dev() const { return tack::device(GetParam()); }
};

TEST_P(HostSharedMemory, ShareHandsOutTheArraysOwnMemory) {
  tack::Array a = dev().from_host(std::vector<float>{1, 2, 3});
  EXPECT_FALSE(a.shared());
  const tack::NativeMemory m = a.share();
  EXPECT_TRUE(a.shared());
  EXPECT_EQ(m.kind, "host");
  EXPECT_EQ(m.bytes, 3 * sizeof(float));
  ASSERT_NE(m.handle, 0u);
  float* p = reinterpret_cast<float*>(m.handle);
  EXPECT_EQ(p[2], 3.0f);
  p[1] = 20.0f;  // the other side writes
  EXPECT_EQ(a.to_host<float>(), (std::vector<float>{1, 20, 3}));
  axpy()(a, a, 1.0f);  // and Tack's launch lands where it reads
  EXPECT_EQ(p[0], 2.0f);
  EXPECT_EQ(p[1], 40.0f);
}

TEST_P(HostSharedMemory, ArrayFromPtrRunsKernelsOverTheCallersMemory) {
  auto owner = std::make_shared<std::vector<float>>(1000, 1.0f);
  tack::Array x = dev().from_host(std::vector<float>(1000, 3.0f));
  {
    tack::Array y = tack::array_from_ptr(dev(), owner->data(), tack::DType::F32, {10, 100}, owner);
    EXPECT_EQ(owner.use_count(), 2) << "the array holds the memory's owner";
    EXPECT_TRUE(y.shared());
    EXPECT_EQ(y.shape(), (std::vector<std::int64_t>{10, 100}));
    EXPECT_EQ(y.share().handle, reinterpret_cast<std::uintptr_t>(owner->data()));
    axpy()(y, x, 2.0f);
    EXPECT_EQ((*owner)[0], 7.0f) << "the kernel wrote the caller's memory in place";
    EXPECT_EQ((*owner)[999], 7.0f);
    y.fill(0.5f);
    EXPECT_EQ(y.sum<double>(), 500.0);
  }
  EXPECT_EQ(owner.use_count(), 1) << "dropping the array lets the owner go, and frees nothing";
  EXPECT_EQ((*owner)[500], 0.5f);
}

TEST_P(HostSharedMemory, WrappedArraysGetNoaliasOnlyWhenDisjoint) {
  std::vector<float> host(64, 0.0f);
  tack::Array low = tack::array_from_ptr(dev(), host.data(), tack::DType::F32, {32});
  tack::Array high = tack::array_from_ptr(dev(), host.data() + 32, tack::DType::F32, {32});
  tack::Array middle = tack::array_from_ptr(dev(), host.data() + 16, tack::DType::F32, {32});
  tack::Array own = dev().zeros(tack::DType::F32, {32});
  auto noalias = [&](const tack::Array& y, const tack::Array& x) {
    const tack::KernelArg args[] = {y, x, 1.0f};
    tack::runtime::ResolvedCall call =
        tack::runtime::check_call(*tack::detail::Access::impl(axpy()), args, nullptr, false);
    return (call.signature.flags & tack::runtime::kSignatureNoalias) != 0;
  };
  EXPECT_TRUE(noalias(low, high)) << "adjacent ranges do not overlap";
  EXPECT_FALSE(noalias(low, middle)) << "overlapping ranges of one host buffer";
  EXPECT_FALSE(noalias(middle, high));
  EXPECT_FALSE(noalias(low, low));
  EXPECT_TRUE(noalias(low, own)) << "Tack's own array lies elsewhere";
  tack::Array view_of_own =
      tack::array_from_ptr(dev(), reinterpret_cast<void*>(own.share().handle), tack::DType::F32, {32});
  EXPECT_FALSE(noalias(view_of_own, own)) << "a wrap of a Tack array's memory aliases it";
}

INSTANTIATE_TEST_SUITE_P(, HostSharedMemory, ::testing::Values("interp", "cpu"),
                         [](const auto& info) { return info.param; });

}  // namespace
