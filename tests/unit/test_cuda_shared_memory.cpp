// Memory outside Tack on the cuda backend, over the stand-in driver: share()
// waits and makes later launches and fills complete, exportable memory is
// virtual memory whose file descriptor maps the array's bytes (the fake backs it
// with a memfd), an ordinary array moves there once with its contents, and
// array_from_ptr wraps device memory after checking it.
#include "unit/cuda_runtime_support.hpp"

#include "backends/cuda/cuda_memory.hpp"

#include <dlpack/dlpack.h>

#include <atomic>
#include <memory>
#include <numeric>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

namespace {

using namespace cuda_test;

constexpr int kVirtualMemoryAttribute = 102;  // CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED

// The first `count` floats an exported descriptor maps.
std::vector<float> mapped_floats(int fd, std::size_t allocation_bytes, std::size_t count) {
  void* p = mmap(nullptr, allocation_bytes, PROT_READ, MAP_SHARED, fd, 0);
  EXPECT_NE(p, MAP_FAILED);
  if (p == MAP_FAILED) return {};
  std::vector<float> out(static_cast<const float*>(p), static_cast<const float*>(p) + count);
  munmap(p, allocation_bytes);
  return out;
}

// Whether a stream synchronize follows log entry `at`.
bool waited_after(int at) { return at >= 0 && find_entry("stream_sync", at + 1) > at; }

using CudaSharedMemory = CudaRuntime;

TEST_F(CudaSharedMemory, ShareWaitsAndReturnsTheDevicePointer) {
  tack::Array y = dev_.from_host(std::vector<float>(100, 1.0f));
  EXPECT_FALSE(y.shared());
  const int syncs = fake_cuda_count("cuStreamSynchronize");
  tack::NativeMemory m = y.share();
  EXPECT_GT(fake_cuda_count("cuStreamSynchronize"), syncs) << "share() waits for the queued work";
  EXPECT_EQ(m.kind, "cuda");
  EXPECT_EQ(m.handle, tack::backends::cuda::device_pointer(y));
  EXPECT_EQ(m.bytes, 400u);
  EXPECT_TRUE(y.shared());
}

TEST_F(CudaSharedMemory, LaunchesAndFillsOfSharedArraysCompleteBeforeReturning) {
  tack::Array x = dev_.from_host(std::vector<float>(256, 1.0f));
  tack::Array y = dev_.from_host(std::vector<float>(256, 2.0f));
  tack::Array z = dev_.from_host(std::vector<float>(256, 3.0f));
  compile_or_skip([&] { saxpy()(z, x, 2.0f); });
  const int private_launch = find_entry("launch ");
  ASSERT_GE(private_launch, 0);
  EXPECT_FALSE(waited_after(private_launch)) << "a launch on Tack's own arrays stays queued";

  y.share();
  const int from = fake_cuda_log_size();
  saxpy()(y, x, 2.0f);
  const int shared_launch = find_entry("launch ", from);
  ASSERT_GE(shared_launch, 0);
  EXPECT_TRUE(waited_after(shared_launch)) << "a launch binding a shared array completes before returning";

  const int fill_from = fake_cuda_log_size();
  y.fill(0.5f);
  const int fill = find_entry("memset", fill_from);
  ASSERT_GE(fill, 0);
  EXPECT_TRUE(waited_after(fill)) << "a fill of a shared array completes before returning";
}

TEST_F(CudaSharedMemory, EmptyExportableIsVirtualMemoryWhoseDescriptorMapsTheArray) {
  EXPECT_TRUE(dev_.capabilities().supports_exportable_memory);
  const int creates = fake_cuda_count("cuMemCreate"), pool = fake_cuda_count("cuMemAllocAsync");
  const int releases = fake_cuda_count("cuMemRelease"), unmaps = fake_cuda_count("cuMemUnmap");
  {
    tack::Array a = dev_.empty_exportable(tack::DType::F32, {1000});
    EXPECT_EQ(fake_cuda_count("cuMemCreate"), creates + 1);
    EXPECT_EQ(fake_cuda_count("cuMemAllocAsync"), pool) << "not from the stream-ordered pool";
    EXPECT_EQ(fake_cuda_count("cuMemSetAccess"), fake_cuda_count("cuMemMap")) << "every mapping is made accessible";
    a.fill(3.0f);
    EXPECT_FALSE(a.shared()) << "exportable, but not handed out yet";
    tack::ExportedMemory e = a.export_memory();
    ASSERT_GE(e.fd, 0);
    EXPECT_EQ(e.bytes, 4000u);
    EXPECT_EQ(e.allocation_bytes, std::size_t{2} << 20) << "one granule of the fake's 2 MiB";
    EXPECT_EQ(e.device_ordinal, 0);
    EXPECT_EQ(fake_cuda_count("cuMemCreate"), creates + 1) << "no copy: the memory was exportable already";
    EXPECT_EQ(mapped_floats(e.fd, e.allocation_bytes, 1000), std::vector<float>(1000, 3.0f));
    EXPECT_TRUE(a.shared());
    close(e.fd);
  }
  EXPECT_EQ(fake_cuda_count("cuMemUnmap"), unmaps + 1);
  EXPECT_EQ(fake_cuda_count("cuMemRelease"), releases + 1) << "the dropped array releases its allocation";
}

TEST_F(CudaSharedMemory, ExportMovesAnOrdinaryArrayOnceKeepingItsContents) {
  std::vector<float> values(300);
  std::iota(values.begin(), values.end(), 0.0f);
  tack::Array a = dev_.from_host(values);
  const std::uint64_t before = tack::backends::cuda::device_pointer(a);
  const int creates = fake_cuda_count("cuMemCreate");

  tack::ExportedMemory first = a.export_memory();
  ASSERT_GE(first.fd, 0);
  const std::uint64_t after = tack::backends::cuda::device_pointer(a);
  EXPECT_NE(after, before) << "the array moved into virtual memory";
  EXPECT_EQ(fake_cuda_count("cuMemCreate"), creates + 1);
  EXPECT_GE(find_entry("dtod", 0, after), 0) << "its contents were copied on the device";
  EXPECT_GE(find_entry("free_async", 0, before), 0) << "the old memory went back to the pool";
  EXPECT_EQ(mapped_floats(first.fd, first.allocation_bytes, values.size()), values);
  EXPECT_EQ(a.to_host<float>(), values) << "the Array reads the moved memory";
  EXPECT_TRUE(a.shared());

  tack::ExportedMemory second = a.export_memory();
  EXPECT_EQ(fake_cuda_count("cuMemCreate"), creates + 1) << "moved once";
  EXPECT_NE(second.fd, first.fd) << "each export is a new descriptor";
  a.fill(5.0f);  // lands in the exported memory, which the other side sees
  EXPECT_EQ(mapped_floats(first.fd, first.allocation_bytes, 4), std::vector<float>(4, 5.0f));
  close(first.fd);
  close(second.fd);
}

TEST_F(CudaSharedMemory, ExportWhileAnotherThreadFillsNeverTouchesFreedMemory) {
  tack::Array a = dev_.zeros(tack::DType::F32, {4096});
  std::atomic<bool> stop{false};
  std::thread filler([&] {
    for (int i = 0; !stop.load(); ++i) a.fill(static_cast<float>(i % 7));
  });
  tack::ExportedMemory e = a.export_memory();
  stop = true;
  filler.join();
  close(e.fd);
  a.fill(6.0f);
  EXPECT_EQ(a.to_host<float>(), std::vector<float>(4096, 6.0f));
  // TearDown checks that no fill was queued on the memory the move freed.
}

TEST_F(CudaSharedMemory, ExportIsRefusedWithoutVirtualMemory) {
  fake_cuda_set_attribute(kVirtualMemoryAttribute, 0);
  tack::Device plain = fresh_device();
  EXPECT_FALSE(plain.capabilities().supports_exportable_memory);
  try {
    plain.empty_exportable(tack::DType::F32, {16});
    FAIL() << "empty_exportable needs virtual memory";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no exportable memory"), std::string::npos) << e.what();
  }
  tack::Array a = plain.zeros(tack::DType::F32, {16});
  EXPECT_THROW(a.export_memory(), tack::InvalidArgument);
  EXPECT_FALSE(a.shared()) << "a refused export hands nothing out";
}

TEST_F(CudaSharedMemory, ArrayFromPtrWrapsDeviceMemoryWithoutOwningIt) {
  tack::Array base = dev_.zeros(tack::DType::F32, {64});
  const tack::NativeMemory m = base.share();
  auto owner = std::make_shared<int>(42);
  const int frees = fake_cuda_count("cuMemFreeAsync");
  {
    tack::Array view = tack::array_from_ptr(dev_, m.handle + 16 * sizeof(float), tack::DType::F32, {16}, owner);
    EXPECT_EQ(owner.use_count(), 2) << "the array keeps its owner alive";
    EXPECT_TRUE(view.shared());
    EXPECT_EQ(view.share().handle, m.handle + 16 * sizeof(float));
    view.fill(2.0f);
  }
  EXPECT_EQ(owner.use_count(), 1) << "and lets it go when dropped";
  EXPECT_EQ(fake_cuda_count("cuMemFreeAsync"), frees) << "Tack never frees memory it did not allocate";
  std::vector<float> expect(64, 0.0f);
  std::fill(expect.begin() + 16, expect.begin() + 32, 2.0f);
  EXPECT_EQ(base.to_host<float>(), expect);
}

TEST_F(CudaSharedMemory, ArrayFromPtrRefusesMemoryItCannotUse) {
  tack::Array base = dev_.zeros(tack::DType::F32, {64});
  const std::uintptr_t p = base.share().handle;
  auto refused = [&](std::uintptr_t address, std::vector<std::int64_t> shape, const std::string& says) {
    try {
      tack::array_from_ptr(dev_, address, tack::DType::F32, shape);
      ADD_FAILURE() << "array_from_ptr should refuse: " << says;
    } catch (const tack::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  std::vector<float> host(64);
  refused(reinterpret_cast<std::uintptr_t>(host.data()), {64}, "is not CUDA device memory");
  refused(p, {65}, "but the array needs 260");
  refused(p + 2, {4}, "is not aligned to the 4 bytes");
  refused(0, {4}, "null");
  refused(p, {-1}, "negative extent");

  tack::Array wrapped = tack::array_from_ptr(dev_, p, tack::DType::F32, {64});
  try {
    wrapped.export_memory();
    FAIL() << "wrapped memory is its owner's to export";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("array_from_ptr"), std::string::npos) << e.what();
  }
}

TEST_F(CudaSharedMemory, DlpackExportsAndImportsDeviceMemory) {
  tack::Array a = dev_.from_host(std::vector<float>(32, 1.5f));
  DLManagedTensor* t = a.to_dlpack();
  EXPECT_TRUE(a.shared());
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(t->dl_tensor.device.device_id, 0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t->dl_tensor.data), tack::backends::cuda::device_pointer(a));
  tack::Array b = tack::from_dlpack(t);  // back on the default cuda device, the same memory
  EXPECT_EQ(b.device(), dev_);
  EXPECT_EQ(b.share().handle, a.share().handle);
  b.fill(2.0f);
  EXPECT_EQ(a.to_host<float>(), std::vector<float>(32, 2.0f));
}

}  // namespace

int main(int argc, char** argv) {
  setenv("TACK_CUDA_LIBRARY", TACK_FAKE_CUDA_LIBRARY, 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
