// The metal backend's device (reference: Metal, Initialization): the system
// default device, MTLCreateSystemDefaultDevice(), and what the runtime reads
// from it once. Plain C++: the Objective-C object is behind an opaque handle
// (metal_objc.h), so this header compiles anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tack::backends::metal {

struct DeviceObjects;

struct DeviceInfo {
  std::string name;
  std::size_t max_threads_per_group = 0;  // maxThreadsPerThreadgroup.width
  std::size_t max_buffer_length = 0;      // maxBufferLength: one MTLBuffer's limit
  std::size_t working_set = 0;            // recommendedMaxWorkingSetSize, 0 where unknown
  // Every Metal GPU's 3D texture limit is 2048 texels per axis (Metal feature set tables).
  std::array<std::int64_t, 3> max_texture3d{2048, 2048, 2048};
  // supports32BitFloatFiltering: linear filtering of an R32Float texture, which hardware textures need.
  bool float32_filtering = false;
};

class Device {
 public:
  // Throws BackendUnavailable when the system has no Metal device.
  static std::shared_ptr<Device> open();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  DeviceObjects& objects() const { return *objects_; }

 private:
  Device(std::unique_ptr<DeviceObjects> objects, DeviceInfo info);
  std::unique_ptr<DeviceObjects> objects_;
  DeviceInfo info_;
};

}  // namespace tack::backends::metal
