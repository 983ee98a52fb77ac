// Memory outside Tack (reference: Memory outside Tack) on every backend that
// wraps it: the device's own memory, handed out by share() as the native handle
// another library would hold (a host pointer, CUdeviceptr, HIP or USM pointer,
// cl_mem, id<MTLBuffer>), comes back through array_from_ptr as an array that
// kernels read and write in place. The wrapped array is shared, so a launch that
// binds it has completed when the call returns; on the host devices that is
// seen by reading the memory with no Tack call in between.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(ForeignMemory);

const tack::Kernel& foreign_axpy() {
  static const tack::Kernel k = tack::kernel("foreign_axpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  return k;
}

TEST_P(ForeignMemory, TheDevicesOwnMemoryWrappedRunsKernelsInPlace) {
  if (!caps().supports_wrapped_memory) GTEST_SKIP() << backend() << " wraps no memory from outside Tack";
  constexpr std::int64_t n = 1000;
  std::vector<float> xs(n), ys(n), want(n);
  for (std::int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i);
    ys[i] = 1.0f;
    want[i] = 2.0f * xs[i] + 1.0f;
  }
  const tack::Array x_owner = dev().from_host(xs), y_owner = dev().from_host(ys);
  const tack::NativeMemory xm = x_owner.share(), ym = y_owner.share();
  ASSERT_EQ(ym.bytes, sizeof(float) * n);
  ASSERT_NE(ym.handle, 0u);
  {
    const tack::Array x = tack::array_from_ptr(dev(), xm.handle, tack::DType::F32, {n});
    const tack::Array y = tack::array_from_ptr(dev(), ym.handle, tack::DType::F32, {n});
    EXPECT_TRUE(y.shared()) << "a wrapped array is shared";
    EXPECT_EQ(y.device().name(), dev().name());
    foreign_axpy()(y, x, 2.0f);
    if (ym.kind == "host") {
      // Nothing waits between the call and this read: the launch completed before returning.
      std::vector<float> seen(n);
      std::memcpy(seen.data(), reinterpret_cast<const void*>(ym.handle), sizeof(float) * n);
      EXPECT_EQ(seen, want) << "the launch over shared memory had not completed when the call returned";
    }
    EXPECT_EQ(y.to_host<float>(), want);
    // The first half of the same memory: the wrapper says how much of the allocation is the array.
    const tack::Array head = tack::array_from_ptr(dev(), ym.handle, tack::DType::F32, {n / 2});
    foreign_axpy()(head, x, -1.0f);
  }
  for (std::int64_t i = 0; i < n / 2; ++i) want[i] -= xs[i];
  EXPECT_EQ(y_owner.to_host<float>(), want) << "the kernels wrote the owner's memory";
  EXPECT_EQ(x_owner.to_host<float>(), xs) << "and only that";
}

}  // namespace
