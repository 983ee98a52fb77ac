// The opencl backend's device: which platform and device a backend uses
// (TACK_OPENCL_DEVICE, the "device" option), what it reports, and the
// capabilities and build options that follow from it.
#pragma once

#include "abi/group_size.hpp"
#include "drivers/opencl_api.hpp"

#include <tack/device.hpp>

#include <string>
#include <vector>

namespace tack::backends::opencl {
using namespace tack::runtime;

struct DeviceInfo {
  drivers::cl::cl_platform_id platform = nullptr;
  drivers::cl::cl_device_id device = nullptr;
  int index = 0;  // in the flattened list of every platform's devices
  std::string platform_name, platform_version;
  std::string device_name, device_version, driver_version;
  std::string extensions;  // space-separated, as the device reports them
  std::string c_std;       // "CL3.0", "CL2.0" or "CL1.2": the newest OpenCL C the device compiles
  bool gpu = false;
  bool correctly_rounded_divide_sqrt = false;  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT for f32
  std::size_t max_work_group_size = 0;
  std::uint64_t local_mem_size = 0;
  std::uint64_t max_mem_alloc_size = 0;
  std::uint32_t address_bits = 64;
  std::uint32_t compute_units = 1;

  bool has_extension(const std::string& name) const;
  // "<platform name> <device name>": what a substring choice matches.
  std::string label() const { return platform_name + " " + device_name; }
};

// Every device of every platform, in platform order. Throws BackendUnavailable
// when the library, any platform or any device is missing.
std::vector<DeviceInfo> list_devices();

// The device the options (option "device", else TACK_OPENCL_DEVICE, else the
// first GPU, else the first device) choose: an integer index into
// list_devices(), or a case-insensitive substring of label(). A choice that
// matches nothing is an InvalidArgument listing the devices.
DeviceInfo choose_device(const DeviceOptions& options);

// The build options every program for this device gets (docs/semantics.md: no fast math).
std::string build_options(const DeviceInfo& d);

// Work-items per group the backend's workgroup kernels need, and the local
// memory they may use (48 KiB of shared arrays plus the group-reduction scratch).
inline constexpr std::size_t kGroupSize = static_cast<std::size_t>(abi::kGroupSize);
inline constexpr std::uint64_t kLocalMemNeeded = 48 * 1024 + 2 * 1024;

Capabilities capabilities(const DeviceInfo& d);

}  // namespace tack::backends::opencl
