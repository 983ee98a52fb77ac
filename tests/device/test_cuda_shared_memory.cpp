// Shared buffers on a real GPU: memory handed outside Tack (share(),
// export_memory()) or taken in (array_from_ptr) is read and written by "another
// library" through the driver API with no Tack call in between, so each launch
// that uses it must have completed when it returned. Skips without a CUDA device.
#include "device/cuda_device_test.hpp"

#include "backends/cuda/cuda_driver.hpp"

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

namespace {

using namespace tack::lang;
namespace cu = tack::backends::cuda::driver;
using CudaAsync = CudaDeviceTest;

// The other library's side: calls in the device's primary context, made current for the call, on a stream of
// its own that does not wait for Tack's (CU_STREAM_NON_BLOCKING; the legacy default stream would wait for it
// and hide a launch still queued there).
class OtherLibrary {
 public:
  OtherLibrary() {
    const cu::Api& api = cu::api();
    EXPECT_EQ(api.cuDeviceGet(&device_, 0), cu::CUDA_SUCCESS);
    EXPECT_EQ(api.cuDevicePrimaryCtxRetain(&context_, device_), cu::CUDA_SUCCESS);
    EXPECT_EQ(api.cuCtxPushCurrent_v2(context_), cu::CUDA_SUCCESS);
    EXPECT_EQ(api.cuStreamCreate(&stream_, kStreamNonBlocking), cu::CUDA_SUCCESS);
  }
  ~OtherLibrary() {
    const cu::Api& api = cu::api();
    api.cuStreamDestroy_v2(stream_);
    cu::CUcontext popped = nullptr;
    api.cuCtxPopCurrent_v2(&popped);
    api.cuDevicePrimaryCtxRelease_v2(device_);
  }
  // A device-side copy on the library's stream, then to the host.
  std::vector<float> read(cu::CUdeviceptr ptr, std::size_t count) const {
    const cu::Api& api = cu::api();
    const std::size_t bytes = count * sizeof(float);
    std::vector<float> out(count);
    cu::CUdeviceptr scratch = 0;
    EXPECT_EQ(api.cuMemAlloc_v2(&scratch, bytes), cu::CUDA_SUCCESS);
    EXPECT_EQ(api.cuMemcpyDtoDAsync_v2(scratch, ptr, bytes, stream_), cu::CUDA_SUCCESS);
    EXPECT_EQ(api.cuStreamSynchronize(stream_), cu::CUDA_SUCCESS);
    EXPECT_EQ(api.cuMemcpyDtoH_v2(out.data(), scratch, bytes), cu::CUDA_SUCCESS);
    api.cuMemFree_v2(scratch);
    return out;
  }

 private:
  static constexpr unsigned kStreamNonBlocking = 1;  // CU_STREAM_NON_BLOCKING
  cu::CUdevice device_ = 0;
  cu::CUcontext context_ = nullptr;
  cu::CUstream stream_ = nullptr;
};

constexpr std::int64_t kN = 1 << 20;
constexpr std::int64_t kSlow = 200000;  // iterations: milliseconds of device time for kN elements

TEST_F(CudaAsync, SharedBuffersCompleteEveryLaunchBeforeReturning) {
  tack::Array y = dev_.zeros(tack::DType::F32, {kN});
  const tack::NativeMemory m = y.share();
  spin()(y, kSlow);    // v -> v/2 + 1 reaches 2 exactly
  OtherLibrary other;  // reads with no Tack call in between
  std::vector<float> seen = other.read(m.handle, kN);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 2.0f), kN) << "seen[0] = " << seen[0];
  y.fill(7.0f);
  seen = other.read(m.handle, 4);
  EXPECT_EQ(seen, std::vector<float>(4, 7.0f)) << "a fill of a shared array completes too";
}

TEST_F(CudaAsync, WrappedDeviceMemoryIsUsedInPlace) {
  const cu::Api& api = cu::api();
  OtherLibrary other;
  cu::CUdeviceptr ptr = 0;
  ASSERT_EQ(api.cuMemAlloc_v2(&ptr, kN * sizeof(float)), cu::CUDA_SUCCESS);
  std::vector<float> ones(kN, 1.0f);
  ASSERT_EQ(api.cuMemcpyHtoDAsync_v2(ptr, ones.data(), ones.size() * sizeof(float), nullptr), cu::CUDA_SUCCESS);
  ASSERT_EQ(api.cuStreamSynchronize(nullptr), cu::CUDA_SUCCESS);
  {
    tack::Array y = tack::array_from_ptr(dev_, static_cast<std::uintptr_t>(ptr), tack::DType::F32, {kN});
    spin()(y, kSlow);
    std::vector<float> seen = other.read(ptr, kN);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 2.0f), kN) << "seen[0] = " << seen[0];
    EXPECT_EQ(y.sum<float>(), 2.0f * static_cast<float>(kN));
  }
  EXPECT_EQ(api.cuMemFree_v2(ptr), cu::CUDA_SUCCESS) << "Tack left the memory to its owner";
}

// What an importing process does with the descriptor, here in the same process: a second mapping of the memory.
TEST_F(CudaAsync, ExportedMemoryIsSeenThroughAnImportedMapping) {
  if (!dev_.capabilities().supports_exportable_memory)
    GTEST_SKIP() << "this device has no virtual memory with POSIX file descriptors";
  const cu::Api& api = cu::api();
  using Import = cu::CUresult (*)(cu::CUmemGenericAllocationHandle*, void*, int);
  void* lib = dlopen(api.library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  auto import = reinterpret_cast<Import>(dlsym(lib, "cuMemImportFromShareableHandle"));
  ASSERT_NE(import, nullptr);

  std::vector<float> values(kN);
  std::iota(values.begin(), values.end(), 0.0f);
  tack::Array a = dev_.from_host(values);  // ordinary memory: the export moves it once
  const tack::ExportedMemory e = a.export_memory();
  ASSERT_GE(e.fd, 0);
  OtherLibrary other;
  cu::CUmemGenericAllocationHandle handle = 0;
  ASSERT_EQ(import(&handle, reinterpret_cast<void*>(static_cast<std::intptr_t>(e.fd)),
                   cu::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            cu::CUDA_SUCCESS);
  close(e.fd);
  cu::CUdeviceptr view = 0;
  ASSERT_EQ(api.cuMemAddressReserve(&view, e.allocation_bytes, 0, 0, 0), cu::CUDA_SUCCESS);
  ASSERT_EQ(api.cuMemMap(view, e.allocation_bytes, 0, handle, 0), cu::CUDA_SUCCESS);
  cu::CUmemAccessDesc access{};
  access.location.type = cu::CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = e.device_ordinal;
  access.flags = cu::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  ASSERT_EQ(api.cuMemSetAccess(view, e.allocation_bytes, &access, 1), cu::CUDA_SUCCESS);

  EXPECT_EQ(other.read(view, kN), values) << "the contents moved with the array";
  spin()(a, kSlow);  // shared from the export on: complete when it returns
  std::vector<float> seen = other.read(view, kN);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 2.0f), kN) << "seen[0] = " << seen[0];

  api.cuMemUnmap(view, e.allocation_bytes);
  api.cuMemAddressFree(view, e.allocation_bytes);
  api.cuMemRelease(handle);
  EXPECT_EQ(a.read_range<float>(0, 1), std::vector<float>{2.0f});
}

}  // namespace
