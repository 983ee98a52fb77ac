// The level_zero backend's driver, device and context (reference: Level Zero,
// Initialization): without options the first driver's first device with a
// context of Tack's own; with the options "external_driver",
// "external_device" and "external_context" (the three handles as integers,
// since device options hold no dictionaries) another library's handles are
// adopted, and the context is left to it. The five device queries are read
// once, here, and each feeds one decision (see DeviceInfo).
#pragma once

#include "abi/group_size.hpp"
#include "drivers/level_zero_api.hpp"

#include <tack/device.hpp>

#include <cstdint>
#include <string>

namespace tack::backends::level_zero {
using namespace tack::runtime;

// The most work-items per group any launch asks for: the ABI's group size.
inline constexpr std::uint32_t kMaxGroupSize = static_cast<std::uint32_t>(abi::kGroupSize);

struct DeviceInfo {
  drivers::ze::ze_driver_handle_t driver = nullptr;
  drivers::ze::ze_device_handle_t device = nullptr;
  drivers::ze::ze_context_handle_t context = nullptr;
  bool owns_context = false;
  // zeDeviceGetProperties: deviceId goes to `ocloc -device 0x<id>`; the name to messages and the cache key.
  std::uint32_t device_id = 0;
  std::string name;
  std::uint64_t max_mem_alloc = 0;
  std::uint32_t ip_version = 0;  // ZE_extension_device_ip_version (names the stepping); 0 when not reported
  // zeDeviceGetComputeProperties: the group size rule and the largest launch.
  std::uint32_t max_total_group_size = 0, max_group_size_x = 0, max_group_count_x = 0;
  // zeDeviceGetImageProperties: whether textures could live in images.
  std::uint32_t max_image_dims_3d = 0, max_samplers = 0;
  // zeDeviceGetModuleProperties: f64 when fp64flags != 0; 64-bit atomics.
  std::uint32_t fp64_flags = 0, module_flags = 0;
  // zeDeviceGetCommandQueueGroupProperties: the first group with the compute flag.
  std::uint32_t compute_ordinal = 0;
  std::size_t max_fill_pattern = 4;
  // The driver.
  std::uint32_t driver_version = 0, api_version = 0;
  bool defer_free = false;        // zeMemFreeExt with ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE
  bool host_synchronize = false;  // zeCommandListHostSynchronize (API 1.6): the list can be asynchronous

  // min(256, maxGroupSizeX, maxTotalGroupSize).
  std::uint32_t group_size() const;
  std::string device_arg() const;  // "0x0bd5"
};

// Opens the device (BackendUnavailable without a loader, driver or device;
// InvalidArgument for a partial or mistyped set of external handles).
DeviceInfo open_device(const DeviceOptions& options);

// The source target's capabilities, with f64 and the 64-bit atomics as the device reports them.
Capabilities capabilities(const DeviceInfo& d);

}  // namespace tack::backends::level_zero
