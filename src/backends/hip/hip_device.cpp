// Opening the HIP device: its queries, the allocator choice, and device memory.
#include "backends/hip/hip_device.hpp"

#include "backends/hip/hip_driver.hpp"
#include "ir/check.hpp"
#include "runtime/gpu/device_ordinal.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace tack::backends::hip {
using namespace tack::runtime;
namespace hp = hip::driver;
namespace {

int attribute(const hp::Api& api, int which, int device) {
  int value = 0;
  hp::check(api.hipDeviceGetAttribute(&value, which, device), "hipDeviceGetAttribute");
  return value;
}

int chosen_ordinal(const hp::Api& api, const DeviceOptions& options, int count) {
  if (const std::optional<std::int64_t> option = device_option(options, "hip"))
    return checked_ordinal("hip", *option, "option 'device'", "the runtime", count);
  int current = 0;
  hp::check(api.hipGetDevice(&current), "hipGetDevice");
  return checked_ordinal("hip", current, "the current device (hipGetDevice)", "the runtime", count);
}

DeviceInfo query(const hp::Api& api, int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  d.runtime_version = api.runtime_version;
  char name[256] = {};
  hp::check(api.hipDeviceGetName(name, sizeof name - 1, ordinal), "hipDeviceGetName");
  d.name = name;
  d.max_grid_dim_x = attribute(api, hp::hipDeviceAttributeMaxGridDimX, ordinal);
  d.multiprocessors = attribute(api, hp::hipDeviceAttributeMultiprocessorCount, ordinal);
  d.max_threads_per_block = attribute(api, hp::hipDeviceAttributeMaxThreadsPerBlock, ordinal);
  d.memory_pools = attribute(api, hp::hipDeviceAttributeMemoryPoolsSupported, ordinal) != 0;
  d.image_support = attribute(api, hp::hipDeviceAttributeImageSupport, ordinal) != 0;
  if (d.image_support)  // asked only where there is texture hardware
    d.max_texture3d = {attribute(api, hp::hipDeviceAttributeMaxTexture3DWidth, ordinal),
                       attribute(api, hp::hipDeviceAttributeMaxTexture3DHeight, ordinal),
                       attribute(api, hp::hipDeviceAttributeMaxTexture3DDepth, ordinal)};
  hp::check(api.hipDeviceTotalMem(&d.total_memory, ordinal), "hipDeviceTotalMem");
  if (api.hipGetDevicePropertiesR0600) {
    // The code object is machine code for one architecture: the disk cache keys on its name.
    std::vector<char> props(hp::kDevicePropBufferBytes, '\0');
    if (api.hipGetDevicePropertiesR0600(props.data(), ordinal) == hp::hipSuccess)
      d.arch.assign(props.data() + hp::kDevicePropR0600GcnArchNameOffset,
                    strnlen(props.data() + hp::kDevicePropR0600GcnArchNameOffset, 256));
  }
  return d;
}

}  // namespace

std::shared_ptr<Device> Device::open(const DeviceOptions& options) {
  // Refused before any device work.
  const std::optional<std::string> allocator_env = support::env_text("TACK_HIP_ALLOCATOR");
  const AllocatorKind allocator = allocator_kind(allocator_env ? allocator_env->c_str() : nullptr);
  const hp::Api& api = hp::api();
  int count = 0;
  const hp::hipError_t r = api.hipGetDeviceCount(&count);
  if (r == hp::hipErrorNoDevice || (r == hp::hipSuccess && count == 0))
    throw BackendUnavailable("hip: the runtime reports no device");
  hp::check(r, "hipGetDeviceCount");
  DeviceInfo info = query(api, chosen_ordinal(api, options, count));
  std::shared_ptr<Device> device(new Device(std::move(info), allocator));
  if (device->allocator_ == AllocatorKind::Pool) {
    // The pool keeps freed memory for reuse instead of returning it to the device at each synchronize.
    DeviceScope scope(device->info_.ordinal);
    hp::hipMemPool_t pool = nullptr;
    hp::check(api.hipDeviceGetDefaultMemPool(&pool, device->info_.ordinal), "hipDeviceGetDefaultMemPool");
    std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
    hp::check(api.hipMemPoolSetAttribute(pool, hp::hipMemPoolAttrReleaseThreshold, &threshold),
              "hipMemPoolSetAttribute(hipMemPoolAttrReleaseThreshold)");
  }
  return device;
}

Device::Device(DeviceInfo info, AllocatorKind allocator)
    : info_(std::move(info)),
      // A device without memory pools falls back to hipMalloc/hipFree (through the cache).
      allocator_(allocator == AllocatorKind::Pool && !info_.memory_pools ? AllocatorKind::Cache : allocator),
      queue_(std::make_shared<Queue>(info_.ordinal)),
      malloc_(info_.ordinal),
      cache_(malloc_, info_.total_memory / 4) {}

Device::~Device() {
  try {
    queue_->wait();  // the cached buffers' last uses are queued
  } catch (const Error&) {
  }
  cache_.trim();
}

void* Device::Malloc::allocate(std::size_t bytes) {
  DeviceScope scope(ordinal_);
  void* p = nullptr;
  const hp::hipError_t r = hp::api().hipMalloc(&p, bytes);
  if (r == hp::hipErrorOutOfMemory) return nullptr;
  hp::check(r, "hipMalloc");
  return p;
}

void Device::Malloc::release(void* ptr, std::size_t) noexcept {
  try {
    DeviceScope scope(ordinal_);
    hp::api().hipFree(ptr);  // waits for the device, so no queued work still uses it
  } catch (const Error&) {
    // The runtime is gone (process exit); the memory went with it.
  }
}

BufferCache::Block Device::allocate(std::size_t bytes) {
  const std::size_t request = bytes ? bytes : 1;  // a distinct address even for an empty array
  BufferCache::Block block;
  if (allocator_ == AllocatorKind::Pool) {
    DeviceScope scope(info_.ordinal);
    const hp::hipError_t r = hp::api().hipMallocAsync(&block.ptr, request, stream());
    if (r != hp::hipErrorOutOfMemory) hp::check(r, "hipMallocAsync");
    block.capacity = request;
  } else {
    block = cache_.acquire(request);
  }
  if (!block.ptr)
    throw BackendError("hip: out of device memory allocating " + std::to_string(bytes) + " bytes on " + info_.name +
                       (allocator_ == AllocatorKind::Pool ? " (hipMallocAsync)" : " (hipMalloc)"));
  return block;
}

BufferCache::Block Device::allocate_in(std::string_view space, std::size_t bytes) {
  const std::size_t request = bytes ? bytes : 1;
  BufferCache::Block block;
  block.capacity = request;
  DeviceScope scope(info_.ordinal);
  const hp::Api& api = hp::api();
  const bool pinned = space == "hip_pinned";
  hp::hipError_t r = 0;
  if (pinned) {
    block.space = BufferCache::Block::Space::Pinned;
    r = api.hipHostMalloc(&block.host, request, hp::hipHostMallocMapped);
  } else {
    TACK_CHECK(space == "hip_managed");
    block.space = BufferCache::Block::Space::Managed;
    r = api.hipMallocManaged(&block.ptr, request, hp::hipMemAttachGlobal);
    block.host = block.ptr;  // one address on host and device
  }
  if (r == hp::hipErrorOutOfMemory)
    throw BackendError("hip: out of memory allocating " + std::to_string(bytes) + " bytes in '" + std::string(space) +
                       "' on " + info_.name + (pinned ? " (hipHostMalloc)" : " (hipMallocManaged)"));
  hp::check(r, pinned ? "hipHostMalloc" : "hipMallocManaged");
  if (pinned) {
    r = api.hipHostGetDevicePointer(&block.ptr, block.host, 0);
    if (r != hp::hipSuccess) {
      api.hipHostFree(block.host);
      hp::check(r, "hipHostGetDevicePointer");
    }
  }
  return block;
}

void Device::free(BufferCache::Block block) noexcept {
  if (!block.ptr) return;
  if (block.space != BufferCache::Block::Space::Device) {
    // Neither free is stream-ordered: the launches queued on the memory finish first.
    try {
      synchronize();
    } catch (const Error&) {
    }
    try {
      DeviceScope scope(info_.ordinal);
      if (block.space == BufferCache::Block::Space::Pinned)
        hp::api().hipHostFree(block.host);
      else
        hp::api().hipFree(block.ptr);
    } catch (const Error&) {
    }
    return;
  }
  if (allocator_ == AllocatorKind::Cache) {
    cache_.give_back(block);  // reused in stream order: see hip_buffer_cache.hpp
    return;
  }
  try {
    DeviceScope scope(info_.ordinal);
    hp::api().hipFreeAsync(block.ptr, stream());  // after the work queued so far
  } catch (const Error&) {
  }
}

}  // namespace tack::backends::hip
