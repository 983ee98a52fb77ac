// Platform and device discovery, the choice among devices, and what a device's
// reports mean for Tack (capabilities, the OpenCL C version to compile for).
#include "backends/opencl/opencl_device.hpp"

#include "backends/opencl/opencl_driver.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/devices/backend_description.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace tack::backends::opencl {
using namespace tack::runtime;
namespace cl = opencl::driver;
namespace {

// A string that a clGet*Info call (`call` names it) answers for `object`: asked for its size, then read, without
// the terminating NUL and the trailing blanks some drivers add.
template <class Object>
std::string info_string(cl::cl_int (*get_info)(Object, cl::cl_uint, std::size_t, void*, std::size_t*), Object object,
                        cl::cl_uint what, const char* call) {
  std::size_t size = 0;
  cl::check(get_info(object, what, 0, nullptr, &size), call);
  std::string s(size, '\0');
  cl::check(get_info(object, what, size, s.data(), nullptr), call);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string platform_string(cl::cl_platform_id p, cl::cl_uint what) {
  return info_string(cl::api().clGetPlatformInfo, p, what, "clGetPlatformInfo");
}

std::string device_string(cl::cl_device_id d, cl::cl_uint what) {
  return info_string(cl::api().clGetDeviceInfo, d, what, "clGetDeviceInfo");
}

template <class T>
T device_value(cl::cl_device_id d, cl::cl_uint what) {
  T v{};
  cl::check(cl::api().clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
  return v;
}

// "OpenCL 3.0 PoCL ..." or "OpenCL C 1.2 pocl": major * 10 + minor, 0 if unreadable.
int version_after(const std::string& text, const std::string& prefix) {
  if (text.compare(0, prefix.size(), prefix) != 0) return 0;
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str() + prefix.size(), "%d.%d", &major, &minor) != 2) return 0;
  return major * 10 + minor;
}

// The newest OpenCL C the device compiles. OpenCL 3.0 lists every version in
// CL_DEVICE_OPENCL_C_ALL_VERSIONS, while its CL_DEVICE_OPENCL_C_VERSION names
// only the newest version fully compatible with 1.2 (so "1.2" on PoCL).
std::string opencl_c_std(cl::cl_device_id d, const std::string& device_version) {
  int newest = version_after(device_string(d, cl::CL_DEVICE_OPENCL_C_VERSION), "OpenCL C ");
  if (version_after(device_version, "OpenCL ") >= 30) {
    std::size_t size = 0;
    const cl::Api& api = cl::api();
    if (api.clGetDeviceInfo(d, cl::CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &size) == cl::CL_SUCCESS && size) {
      std::vector<cl::cl_name_version> all(size / sizeof(cl::cl_name_version));
      if (api.clGetDeviceInfo(d, cl::CL_DEVICE_OPENCL_C_ALL_VERSIONS, all.size() * sizeof(cl::cl_name_version),
                              all.data(), nullptr) == cl::CL_SUCCESS)
        for (const auto& v : all)
          newest = std::max(newest, static_cast<int>((v.version >> 22) * 10 + ((v.version >> 12) & 0x3FF)));
    }
  }
  if (newest >= 30) return "CL3.0";
  if (newest >= 20) return "CL2.0";
  if (newest >= 12) return "CL1.2";
  return "";  // OpenCL C 1.0/1.1: the compiler's default
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string device_list(const std::vector<DeviceInfo>& devices) {
  std::string s;
  for (const DeviceInfo& d : devices) s += "\n  " + std::to_string(d.index) + ": " + d.label();
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The device `choice` names; `from` says where the choice came from, for the message.
const DeviceInfo& pick(const std::vector<DeviceInfo>& devices, const std::string& choice, const std::string& from) {
  if (all_digits(choice)) {
    std::size_t i = choice.size() > 9 ? devices.size() : static_cast<std::size_t>(std::stoul(choice));
    if (i < devices.size()) return devices[i];
    throw InvalidArgument("device 'opencl': " + from + " = " + choice +
                          " is not a device index; the devices are:" + device_list(devices));
  }
  const std::string want = lower(choice);
  for (const DeviceInfo& d : devices)
    if (!want.empty() && lower(d.label()).find(want) != std::string::npos) return d;
  throw InvalidArgument("device 'opencl': " + from + " = '" + choice +
                        "' matches no OpenCL device (an index or a case-insensitive part of the name); "
                        "the devices are:" +
                        device_list(devices));
}

}  // namespace

bool DeviceInfo::has_extension(const std::string& name) const {
  std::istringstream words(extensions);
  for (std::string w; words >> w;)
    if (w == name) return true;
  return false;
}

std::vector<DeviceInfo> list_devices() {
  const cl::Api& api = cl::api();
  cl::cl_uint count = 0;
  cl::cl_int err = api.clGetPlatformIDs(0, nullptr, &count);
  if (err == cl::CL_PLATFORM_NOT_FOUND_KHR || (err == cl::CL_SUCCESS && count == 0))
    throw BackendUnavailable("the OpenCL loader found no platform (no ICD in /etc/OpenCL/vendors, or none loads)");
  if (err != cl::CL_SUCCESS)
    throw BackendUnavailable("clGetPlatformIDs failed: " + cl::error_name(err) + " (" + std::to_string(err) + ")");
  std::vector<cl::cl_platform_id> platforms(count);
  cl::check(api.clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<DeviceInfo> out;
  for (cl::cl_platform_id p : platforms) {
    cl::cl_uint n = 0;
    // A platform without devices (an ICD installed for hardware that is absent) is skipped.
    if (api.clGetDeviceIDs(p, cl::CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != cl::CL_SUCCESS || n == 0) continue;
    std::vector<cl::cl_device_id> ids(n);
    if (api.clGetDeviceIDs(p, cl::CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr) != cl::CL_SUCCESS) continue;
    const std::string pname = platform_string(p, cl::CL_PLATFORM_NAME);
    const std::string pversion = platform_string(p, cl::CL_PLATFORM_VERSION);
    for (cl::cl_device_id id : ids) {
      DeviceInfo d;
      d.platform = p;
      d.device = id;
      d.index = static_cast<int>(out.size());
      d.platform_name = pname;
      d.platform_version = pversion;
      d.device_name = device_string(id, cl::CL_DEVICE_NAME);
      d.device_version = device_string(id, cl::CL_DEVICE_VERSION);
      d.driver_version = device_string(id, cl::CL_DRIVER_VERSION);
      d.extensions = device_string(id, cl::CL_DEVICE_EXTENSIONS);
      d.c_std = opencl_c_std(id, d.device_version);
      d.gpu = (device_value<cl::cl_bitfield>(id, cl::CL_DEVICE_TYPE) & cl::CL_DEVICE_TYPE_GPU) != 0;
      d.correctly_rounded_divide_sqrt = (device_value<cl::cl_bitfield>(id, cl::CL_DEVICE_SINGLE_FP_CONFIG) &
                                         cl::CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
      d.max_work_group_size = device_value<std::size_t>(id, cl::CL_DEVICE_MAX_WORK_GROUP_SIZE);
      d.local_mem_size = device_value<cl::cl_ulong>(id, cl::CL_DEVICE_LOCAL_MEM_SIZE);
      d.max_mem_alloc_size = device_value<cl::cl_ulong>(id, cl::CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      d.address_bits = device_value<cl::cl_uint>(id, cl::CL_DEVICE_ADDRESS_BITS);
      d.compute_units = std::max<cl::cl_uint>(1, device_value<cl::cl_uint>(id, cl::CL_DEVICE_MAX_COMPUTE_UNITS));
      out.push_back(std::move(d));
    }
  }
  if (out.empty())
    throw BackendUnavailable("no OpenCL platform has a device (" + std::to_string(count) + " platforms)");
  return out;
}

DeviceInfo choose_device(const DeviceOptions& options) {
  std::string choice, from;
  if (auto it = options.find("device"); it != options.end()) {
    from = "option 'device'";
    if (const auto* i = std::get_if<std::int64_t>(&it->second)) {
      if (*i < 0) throw InvalidArgument("device 'opencl': option 'device' = " + std::to_string(*i) + " is negative");
      choice = std::to_string(*i);
    } else if (const auto* s = std::get_if<std::string>(&it->second)) {
      choice = *s;
    } else {
      throw InvalidArgument("device 'opencl': option 'device' must be an integer index or a name (a string)");
    }
  } else if (std::optional<std::string> env = support::env_text("TACK_OPENCL_DEVICE")) {
    from = "TACK_OPENCL_DEVICE";
    choice = std::move(*env);
  }
  std::vector<DeviceInfo> devices = list_devices();
  if (!from.empty()) return pick(devices, choice, from);
  for (const DeviceInfo& d : devices)
    if (d.gpu) return d;
  return devices.front();
}

std::string build_options(const DeviceInfo& d) {
  std::string s;
  if (!d.c_std.empty()) s += "-cl-std=" + d.c_std;
  // Without it OpenCL allows 2.5 ulp for f32 division and 3 for sqrt; §4 wants them correctly rounded.
  if (d.correctly_rounded_divide_sqrt)
    s += (s.empty() ? "" : " ") + std::string("-cl-fp32-correctly-rounded-divide-sqrt");
  return s;
}

Capabilities capabilities(const DeviceInfo& d) {
  // Every atomic up to 32 bits: 8- and 16-bit atomics and f32 are compare-and-swap loops on a 32-bit word,
  // which every device has. 64-bit ones (f64 included) need only cl_khr_int64_base_atomics: the generator
  // writes min, max and the bit operations as compare-and-swap loops.
  Capabilities c = backend_description("opencl").capabilities(d.has_extension("cl_khr_fp64"),
                                                              d.has_extension("cl_khr_int64_base_atomics"));
  c.display_name += " (" + d.device_name + ")";
  // Workgroup kernels need groups of 256 and their shared arrays in local memory.
  c.supports_workgroups = d.max_work_group_size >= kGroupSize && d.local_mem_size >= kLocalMemNeeded;
  c.supports_wrapped_memory = true;  // a cl_mem of the device's context (opencl_backend.cpp)
  return c;
}

}  // namespace tack::backends::opencl
