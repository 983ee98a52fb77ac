// The hip backend's device (reference: HIP, Initialization): hipInit(0) (in
// hip::driver::api()) and the current device from hipGetDevice(), unless the
// option "device" names another ordinal. Tack makes no context: the HIP runtime
// manages it. The device is asked whether it has texture hardware at all
// (hipDeviceAttributeImageSupport: CDNA parts, gfx940/941/942, have none, and
// hipRTC refuses tex3D there) and for its 3-D texture extents, its grid limit
// (the launch limit) and its memory (the buffer cache's quarter).
#pragma once

#include "backends/hip/hip_buffer_cache.hpp"
#include "backends/hip/hip_driver.hpp"
#include "backends/hip/hip_queue.hpp"
#include "runtime/devices/backend.hpp"
#include "support/no_copy.hpp"

#include <tack/device.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tack::backends::hip {
using namespace tack::runtime;

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string arch;  // gcnArchName, e.g. "gfx90a:sramecc+:xnack-"; empty before ROCm 6 (then no disk cache)
  std::int64_t max_grid_dim_x = 0;
  int multiprocessors = 1;
  int max_threads_per_block = 0;
  std::size_t total_memory = 0;
  bool image_support = false;
  std::array<std::int64_t, 3> max_texture3d{};  // width, height, depth
  bool memory_pools = false;
  int runtime_version = 0;  // hipRuntimeGetVersion
};

class Device : support::NoCopy {
 public:
  // Throws BackendUnavailable without a runtime or device, InvalidArgument for an ordinal out of range or a
  // bad TACK_HIP_ALLOCATOR.
  static std::shared_ptr<Device> open(const DeviceOptions& options);
  ~Device();

  const DeviceInfo& info() const { return info_; }
  AllocatorKind allocator() const { return allocator_; }
  // The device's one queue; buffers and markers keep a reference to it.
  const std::shared_ptr<Queue>& queue() const { return queue_; }
  drivers::hip::hipStream_t stream() const { return queue_->stream(); }

  // Device memory: through the buffer cache, or the runtime's pool (TACK_HIP_ALLOCATOR=pool, on a device with
  // memory pools). Throws BackendError when the device is out of memory.
  BufferCache::Block allocate(std::size_t bytes);
  // In "hip_pinned" (hipHostMalloc, mapped) or "hip_managed" (hipMallocManaged): host-addressable, so a read
  // waits for the stream and copies with memcpy.
  BufferCache::Block allocate_in(std::string_view space, std::size_t bytes);
  void free(BufferCache::Block block) noexcept;
  // A DeviceBuffer's operations on its block (hip_memory.cpp), queued on the stream; a read waits first.
  void write_buffer(const BufferCache::Block& block, std::size_t offset, const void* src, std::size_t bytes);
  void read_buffer(const BufferCache::Block& block, std::size_t offset, void* dst, std::size_t bytes);
  void fill_buffer(const BufferCache::Block& block, const void* element, std::size_t element_size, std::size_t count);
  void copy_buffer(const BufferCache::Block& from, const BufferCache::Block& to, std::size_t bytes);
  NativeMemory native_memory(const BufferCache::Block& block, std::size_t bytes) const {
    return {"hip", reinterpret_cast<std::uintptr_t>(block.ptr), bytes, info_.ordinal};
  }

  void synchronize() { queue_->wait(); }
  // Unloads a module once the launches queued before are done (hip_kernel.cpp).
  void unload(drivers::hip::hipModule_t module, drivers::hip::hipFunction_t function) noexcept;

 private:
  class Malloc final : public BufferAllocator {
   public:
    explicit Malloc(int ordinal) : ordinal_(ordinal) {}
    void* allocate(std::size_t bytes) override;
    void release(void* ptr, std::size_t bytes) noexcept override;

   private:
    int ordinal_;
  };

  Device(DeviceInfo info, AllocatorKind allocator);

  DeviceInfo info_;
  AllocatorKind allocator_;
  std::shared_ptr<Queue> queue_;
  Malloc malloc_;
  BufferCache cache_;  // after malloc_, which it releases into at destruction
};

}  // namespace tack::backends::hip
