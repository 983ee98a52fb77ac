// Choosing the driver, device and context, and the five device queries.
#include "backends/level_zero/level_zero_device.hpp"

#include "backends/level_zero/level_zero_driver.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/devices/backend_description.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tack::backends::level_zero {
using namespace tack::runtime;
namespace ze = level_zero::driver;
namespace {

void* handle_option(const DeviceOptions& options, const char* name) {
  auto it = options.find(name);
  if (it == options.end()) return nullptr;
  if (!std::holds_alternative<std::int64_t>(it->second) || std::get<std::int64_t>(it->second) == 0)
    throw InvalidArgument(std::string("level_zero: option '") + name +
                          "' must be a non-null Level Zero handle, as an integer (reinterpret_cast<std::int64_t>)");
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(std::get<std::int64_t>(it->second)));
}

// One zeDeviceGet*Properties answer (`call` names it): the struct of type `stype`, with `next` chained (an
// extension struct the driver fills too, or null).
template <class Properties>
Properties device_properties(ze::ze_result_t (*get)(ze::ze_device_handle_t, Properties*), ze::ze_device_handle_t device,
                             int stype, const char* call, void* next = nullptr) {
  Properties p{};
  p.stype = stype;
  p.pNext = next;
  ze::check(get(device, &p), call);
  return p;
}

void query(DeviceInfo& d) {
  const ze::Api& api = ze::api();
  ze::ze_device_ip_version_ext_t ip{ze::ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT, nullptr, 0};
  // A driver without the IP version extension leaves it 0.
  const auto props = device_properties(api.zeDeviceGetProperties, d.device, ze::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
                                       "zeDeviceGetProperties", &ip);
  d.device_id = props.deviceId;
  d.name = std::string(props.name, strnlen(props.name, sizeof props.name));
  d.max_mem_alloc = props.maxMemAllocSize;
  d.ip_version = ip.ipVersion;

  const auto compute =
      device_properties(api.zeDeviceGetComputeProperties, d.device, ze::ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES,
                        "zeDeviceGetComputeProperties");
  d.max_total_group_size = compute.maxTotalGroupSize;
  d.max_group_size_x = compute.maxGroupSizeX;
  d.max_group_count_x = compute.maxGroupCountX;

  const auto image = device_properties(api.zeDeviceGetImageProperties, d.device,
                                       ze::ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES, "zeDeviceGetImageProperties");
  d.max_image_dims_3d = image.maxImageDims3D;
  d.max_samplers = image.maxSamplers;

  const auto module = device_properties(api.zeDeviceGetModuleProperties, d.device,
                                        ze::ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, "zeDeviceGetModuleProperties");
  d.fp64_flags = module.fp64flags;
  d.module_flags = module.flags;

  std::uint32_t groups = 0;
  ze::check(api.zeDeviceGetCommandQueueGroupProperties(d.device, &groups, nullptr),
            "zeDeviceGetCommandQueueGroupProperties");
  std::vector<ze::ze_command_queue_group_properties_t> group(groups);
  for (auto& g : group) g.stype = ze::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  ze::check(api.zeDeviceGetCommandQueueGroupProperties(d.device, &groups, group.data()),
            "zeDeviceGetCommandQueueGroupProperties");
  bool found = false;
  for (std::uint32_t i = 0; i < groups && !found; ++i) {
    if (!(group[i].flags & ze::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)) continue;
    d.compute_ordinal = i;
    d.max_fill_pattern = group[i].maxMemoryFillPatternSize;
    found = true;
  }
  if (!found) throw BackendUnavailable("level_zero: " + d.name + " has no command queue group that runs kernels");

  ze::ze_driver_properties_t driver{};
  driver.stype = ze::ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  ze::check(api.zeDriverGetProperties(d.driver, &driver), "zeDriverGetProperties");
  d.driver_version = driver.driverVersion;
  ze::check(api.zeDriverGetApiVersion(d.driver, &d.api_version), "zeDriverGetApiVersion");
  // The list can be asynchronous only where the host can wait for it (API 1.6).
  d.host_synchronize = api.zeCommandListHostSynchronize && d.api_version >= ze::ZE_API_VERSION_1_6;
  std::uint32_t count = 0;
  ze::check(api.zeDriverGetExtensionProperties(d.driver, &count, nullptr), "zeDriverGetExtensionProperties");
  std::vector<ze::ze_driver_extension_properties_t> ext(count);
  ze::check(api.zeDriverGetExtensionProperties(d.driver, &count, ext.data()), "zeDriverGetExtensionProperties");
  for (const auto& e : ext)
    if (std::strncmp(e.name, ze::kMemoryFreePoliciesExtension, sizeof e.name) == 0 && api.zeMemFreeExt)
      d.defer_free = true;
}

}  // namespace

std::uint32_t DeviceInfo::group_size() const {
  return std::max<std::uint32_t>(1, std::min({kMaxGroupSize, max_group_size_x, max_total_group_size}));
}

std::string DeviceInfo::device_arg() const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", device_id);
  return buf;
}

DeviceInfo open_device(const DeviceOptions& options) {
  const ze::Api& api = ze::api();
  DeviceInfo d;
  void* driver = handle_option(options, "external_driver");
  void* device = handle_option(options, "external_device");
  void* context = handle_option(options, "external_context");
  if (driver || device || context) {
    if (!(driver && device && context))
      throw InvalidArgument(
          "level_zero: adopting another library's handles needs all three options, 'external_driver', "
          "'external_device' and 'external_context'");
    d.driver = static_cast<ze::ze_driver_handle_t>(driver);
    d.device = static_cast<ze::ze_device_handle_t>(device);
    d.context = static_cast<ze::ze_context_handle_t>(context);
    query(d);
    return d;
  }
  std::uint32_t count = 1;
  ze::check(api.zeDriverGet(&count, nullptr), "zeDriverGet");
  if (count == 0) throw BackendUnavailable("level_zero: the loader (" + api.library + ") reports no driver");
  count = 1;
  ze::check(api.zeDriverGet(&count, &d.driver), "zeDriverGet");
  count = 1;
  ze::check(api.zeDeviceGet(d.driver, &count, nullptr), "zeDeviceGet");
  if (count == 0) throw BackendUnavailable("level_zero: the first driver reports no device");
  count = 1;
  ze::check(api.zeDeviceGet(d.driver, &count, &d.device), "zeDeviceGet");
  query(d);
  ze::ze_context_desc_t desc{ze::ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze::check(api.zeContextCreate(d.driver, &desc, &d.context), "zeContextCreate");
  d.owns_context = true;
  return d;
}

Capabilities capabilities(const DeviceInfo& d) {
  // f64 where zeDeviceGetModuleProperties reports fp64 support, 64-bit atomics where it reports them.
  Capabilities c =
      backend_description("level_zero")
          .capabilities(d.fp64_flags != 0, (d.module_flags & drivers::ze::ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0);
  // Workgroup kernels are compiled for groups of exactly 256 (reqd_work_group_size).
  c.supports_workgroups = d.group_size() >= kMaxGroupSize;
  c.supports_wrapped_memory = true;  // USM device or shared memory of the context (level_zero_backend.cpp)
  return c;
}

}  // namespace tack::backends::level_zero
