// Opening the system default Metal device.
#include "backends/metal/metal_device.hpp"

#include "backends/metal/metal_objc.h"

#include "ir/check.hpp"

#include <tack/error.hpp>

#include <cstring>
#include <string>

namespace tack::backends::metal {

Device::Device(std::unique_ptr<DeviceObjects> objects, DeviceInfo info)
    : objects_(std::move(objects)), info_(std::move(info)) {}

Device::~Device() = default;

std::shared_ptr<Device> Device::open() {
  @autoreleasepool {
    id<MTLDevice> device = MTLCreateSystemDefaultDevice();
    if (!device) throw BackendUnavailable("metal: MTLCreateSystemDefaultDevice() found no Metal device");
    // The generated kernels read every array's address from their argument buffer, a plain struct of
    // pointers, which only Metal 3 GPUs fill from the host (gpuAddress, gpuResourceID).
    bool metal3 = false;
    if (@available(macOS 13.0, iOS 16.0, *)) metal3 = [device supportsFamily:MTLGPUFamilyMetal3];
    if (!metal3)
      throw BackendUnavailable(std::string("metal: ") + (device.name ? device.name.UTF8String : "the device") +
                               " is not a Metal 3 GPU (MTLGPUFamilyMetal3), which Tack's argument buffers need");
    DeviceInfo info;
    info.name = device.name ? device.name.UTF8String : "Metal device";
    info.max_threads_per_group = device.maxThreadsPerThreadgroup.width;
    info.max_buffer_length = device.maxBufferLength;
    if ([device respondsToSelector:@selector(recommendedMaxWorkingSetSize)])
      info.working_set = static_cast<std::size_t>(device.recommendedMaxWorkingSetSize);
    // Asked rather than assumed: a GPU that cannot filter 32-bit floats samples textures in software.
    if ([device respondsToSelector:@selector(supports32BitFloatFiltering)])
      info.float32_filtering = device.supports32BitFloatFiltering;
    auto objects = std::make_unique<DeviceObjects>();
    objects->device = device;
    return std::shared_ptr<Device>(new Device(std::move(objects), std::move(info)));
  }
}

std::uint64_t gpu_address(id<MTLBuffer> buffer) {
  if (@available(macOS 13.0, iOS 16.0, *)) return buffer.gpuAddress;
  TACK_UNREACHABLE("metal: gpuAddress before macOS 13 (Device::open refuses such a system)");
}

std::uint64_t gpu_resource_id(id<MTLTexture> texture) {
  if (@available(macOS 13.0, iOS 16.0, *)) {
    const MTLResourceID id = texture.gpuResourceID;
    std::uint64_t bits = 0;
    static_assert(sizeof id == sizeof bits, "MTLResourceID is 64 bits");
    std::memcpy(&bits, &id, sizeof bits);
    return bits;
  }
  TACK_UNREACHABLE("metal: gpuResourceID before macOS 13 (Device::open refuses such a system)");
}

}  // namespace tack::backends::metal
