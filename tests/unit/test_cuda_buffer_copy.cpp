// Buffer::copy_from on the cuda backend: between two buffers of one context a
// cuMemcpyDtoDAsync on the context's stream (queued, no wait); from another
// backend's buffer it declines, so the caller stages through the host. CUDA
// samples textures in hardware, so no texture reaches this copy today; a
// fallback would. Linked into tack_cuda_runtime_tests, over the stand-in driver.
#include "support/fake_cuda/fake_cuda.hpp"

#include "backends/cuda/cuda_memory.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

namespace cuda = tack::backends::cuda;

TEST(CudaBufferCopy, BetweenBuffersOfOneContextIsAQueuedDeviceCopy) {
  fake_cuda_reset();
  tack::Device d = tack::device("cuda");
  tack::Array from = d.from_host(std::vector<float>{1, 2, 3, 4});
  tack::Array to = d.zeros(tack::DType::F32, {4});
  const int log_before = fake_cuda_log_size();
  ASSERT_TRUE(tack::detail::Access::storage(to)->buffer->copy_from(*tack::detail::Access::storage(from)->buffer,
                                                                   4 * sizeof(float)));
  int copies = 0;
  for (int i = log_before; i < fake_cuda_log_size(); ++i) {
    const std::string entry = fake_cuda_log_entry(i);
    EXPECT_NE(entry, "stream_sync") << "the copy is queued, not waited for";
    EXPECT_NE(entry, "event_sync") << "the copy is queued, not waited for";
    EXPECT_NE(entry, "dtoh");
    if (entry != "dtod") continue;
    ++copies;
    FakeCudaOp op{};
    ASSERT_TRUE(fake_cuda_log_op(i, &op));
    EXPECT_EQ(op.pointer, cuda::device_pointer(to));
    EXPECT_EQ(op.bytes, 4 * sizeof(float));
  }
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(to.to_host<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_STREQ(fake_cuda_misuse(), "");
}

TEST(CudaBufferCopy, FromAnotherBackendsBufferItDeclines) {
  tack::Array host = tack::device("cpu").from_host(std::vector<float>{1, 2});
  tack::Array on_cuda = tack::device("cuda").zeros(tack::DType::F32, {2});
  EXPECT_FALSE(tack::detail::Access::storage(on_cuda)->buffer->copy_from(*tack::detail::Access::storage(host)->buffer,
                                                                         2 * sizeof(float)));
  EXPECT_EQ(on_cuda.to_host<float>(), (std::vector<float>{0, 0}));
}

}  // namespace
