// The cuda device's memory spaces over the stand-in driver (linked into
// tack_cuda_runtime_tests): "cuda" (the stream-ordered pool), "cuda_pinned"
// (cuMemHostAlloc, mapped) and "cuda_managed" (cuMemAllocManaged). Arrays in
// either of the last two are ordinary arrays to kernels, fills and copies;
// a host read waits for the stream and copies with memcpy (no device-to-host
// copy); their memory is freed after the stream's queued work.
#include "cuda_runtime_support.hpp"

#include "backends/cuda/cuda_memory.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace cuda_test;

TEST_F(CudaRuntime, ListsItsMemorySpaces) {
  EXPECT_EQ(dev_.capabilities().device_memory_spaces,
            (std::vector<std::string>{"cuda", "cuda_pinned", "cuda_managed"}));
}

struct SpaceCase {
  const char* space;
  const char* alloc;  // the log entry of its allocation
  const char* free;   // and of its free
};

TEST_F(CudaRuntime, ArraysInEachSpaceRunKernelsAndReadBackWithoutADeviceToHostCopy) {
  for (const SpaceCase& c :
       {SpaceCase{"cuda_pinned", "alloc_host", "free_host"}, SpaceCase{"cuda_managed", "alloc_managed", "free"}}) {
    SCOPED_TRACE(c.space);
    int from = fake_cuda_log_size();
    {
      tack::Array y = dev_.zeros(tack::DType::F32, {300}, c.space);
      const int alloc = find_entry(c.alloc, from);
      ASSERT_GE(alloc, 0);
      EXPECT_EQ(op_at(alloc).pointer, tack::backends::cuda::device_pointer(y));
      EXPECT_GE(find_entry("memset", alloc), 0) << "zeros fills on the stream";
      tack::Array x = dev_.from_host(std::vector<float>(300, 2.0f));
      const int launches_before = fake_cuda_launch_count();
      saxpy()(y, x, 3.0f);
      ASSERT_EQ(fake_cuda_launch_count(), launches_before + 1);
      EXPECT_EQ(param_u64(launches(launches_before)[0], 0), tack::backends::cuda::device_pointer(y))
          << "the kernel gets the device address of the memory";
      const int read_from = fake_cuda_log_size();
      y.fill(5.0f);
      EXPECT_EQ(y.to_host<float>(), std::vector<float>(300, 5.0f));
      EXPECT_EQ(find_entry("dtoh", read_from), -1) << "the host reads the memory itself";
      EXPECT_GE(find_entry("stream_sync", read_from), 0) << "after the stream's work";
      from = fake_cuda_log_size();
    }
    int free = -1;  // exactly c.free ("free" is also the start of "free_async", which find_entry would take)
    for (int i = from; i < fake_cuda_log_size() && free < 0; ++i)
      if (std::string(fake_cuda_log_entry(i)) == c.free) free = i;
    ASSERT_GE(free, 0);
    int last_sync_before_free = -1;
    for (int i = from; i < free; ++i)
      if (std::string(fake_cuda_log_entry(i)) == "stream_sync") last_sync_before_free = i;
    EXPECT_GE(last_sync_before_free, 0) << "a queued launch may still use the memory: the stream is waited for first";
  }
}

TEST_F(CudaRuntime, ASpaceTheDeviceDoesNotListIsRefused) {
  try {
    dev_.zeros(tack::DType::F32, {4}, "hip_pinned");
    FAIL() << "expected InvalidArgument";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("the cuda device has no memory space 'hip_pinned' (it has 'cuda', "
                                         "'cuda_pinned', 'cuda_managed')"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CudaRuntime, OnlyDeviceMemoryIsExported) {
  tack::Array pinned = dev_.empty(tack::DType::F32, {4}, "cuda_pinned");
  try {
    pinned.export_memory();
    FAIL() << "expected InvalidArgument";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("lives in the 'cuda_pinned' memory space"), std::string::npos) << e.what();
  }
}

}  // namespace
