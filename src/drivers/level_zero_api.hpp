// The Level Zero API, loaded at run time with dlopen (libze_loader.so.1), so
// Tack builds without the oneAPI SDK and a machine without the loader only
// loses the level_zero backend. Only what Tack calls is declared here, by hand,
// with the layouts and values of the specification's ze_api.h (1.x).
#pragma once

#include "drivers/entry_points.hpp"
#include "drivers/failure.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tack::drivers::ze {

using ze_result_t = int;
using ze_driver_handle_t = struct _ze_driver_handle_t*;
using ze_device_handle_t = struct _ze_device_handle_t*;
using ze_context_handle_t = struct _ze_context_handle_t*;
using ze_command_list_handle_t = struct _ze_command_list_handle_t*;
using ze_module_handle_t = struct _ze_module_handle_t*;
using ze_module_build_log_handle_t = struct _ze_module_build_log_handle_t*;
using ze_kernel_handle_t = struct _ze_kernel_handle_t*;
using ze_event_pool_handle_t = struct _ze_event_pool_handle_t*;
using ze_event_handle_t = struct _ze_event_handle_t*;
using ze_image_handle_t = struct _ze_image_handle_t*;

inline constexpr ze_result_t ZE_RESULT_SUCCESS = 0;
inline constexpr ze_result_t ZE_RESULT_NOT_READY = 1;
inline constexpr ze_result_t ZE_RESULT_ERROR_DEVICE_LOST = 0x70000001;
inline constexpr ze_result_t ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY = 0x70000002;
inline constexpr ze_result_t ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY = 0x70000003;
inline constexpr ze_result_t ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004;
inline constexpr ze_result_t ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001;
inline constexpr ze_result_t ZE_RESULT_ERROR_UNSUPPORTED_FEATURE = 0x78000003;
inline constexpr ze_result_t ZE_RESULT_ERROR_INVALID_ARGUMENT = 0x78000004;
inline constexpr ze_result_t ZE_RESULT_ERROR_INVALID_NATIVE_BINARY = 0x7800000f;
inline constexpr ze_result_t ZE_RESULT_ERROR_INVALID_KERNEL_NAME = 0x78000011;

// ze_structure_type_t
inline constexpr int ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES = 0x1;
inline constexpr int ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3;
inline constexpr int ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES = 0x4;
inline constexpr int ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES = 0x5;
inline constexpr int ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES = 0x6;
inline constexpr int ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES = 0xa;
inline constexpr int ZE_STRUCTURE_TYPE_CONTEXT_DESC = 0xd;
inline constexpr int ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC = 0xe;
inline constexpr int ZE_STRUCTURE_TYPE_EVENT_POOL_DESC = 0x10;
inline constexpr int ZE_STRUCTURE_TYPE_EVENT_DESC = 0x11;
inline constexpr int ZE_STRUCTURE_TYPE_IMAGE_DESC = 0x13;
inline constexpr int ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC = 0x15;
inline constexpr int ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC = 0x16;
inline constexpr int ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES = 0x17;
inline constexpr int ZE_STRUCTURE_TYPE_MODULE_DESC = 0x1b;
inline constexpr int ZE_STRUCTURE_TYPE_KERNEL_DESC = 0x1d;
inline constexpr int ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC = 0x1000a;
inline constexpr int ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT = 0x1000f;

inline constexpr unsigned ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS = 1u << 2;
inline constexpr unsigned ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE = 1u << 0;
inline constexpr int ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS = 1;
inline constexpr int ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS = 2;
inline constexpr int ZE_COMMAND_QUEUE_PRIORITY_NORMAL = 0;
inline constexpr int ZE_MODULE_FORMAT_IL_SPIRV = 0;
inline constexpr int ZE_MODULE_FORMAT_NATIVE = 1;
inline constexpr unsigned ZE_EVENT_POOL_FLAG_HOST_VISIBLE = 1u << 0;
inline constexpr unsigned ZE_EVENT_SCOPE_FLAG_HOST = 1u << 2;
inline constexpr unsigned ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE = 1u << 1;
// ze_image_type_t, ze_image_format_layout_t, ze_image_format_type_t, ze_image_format_swizzle_t
inline constexpr int ZE_IMAGE_TYPE_3D = 4;
inline constexpr int ZE_IMAGE_FORMAT_LAYOUT_32 = 2;
inline constexpr int ZE_IMAGE_FORMAT_TYPE_FLOAT = 4;
inline constexpr int ZE_IMAGE_FORMAT_SWIZZLE_R = 0;
inline constexpr int ZE_IMAGE_FORMAT_SWIZZLE_0 = 4;
inline constexpr int ZE_IMAGE_FORMAT_SWIZZLE_1 = 5;
inline constexpr std::uint32_t ZE_API_VERSION_1_6 = (1u << 16) | 6u;  // ZE_MAKE_VERSION(1, 6)
inline constexpr const char* kMemoryFreePoliciesExtension = "ZE_extension_memory_free_policies";

struct ze_device_properties_t {
  int stype;
  void* pNext;
  int type;
  std::uint32_t vendorId;
  std::uint32_t deviceId;
  std::uint32_t flags;
  std::uint32_t subdeviceId;
  std::uint32_t coreClockRate;
  std::uint64_t maxMemAllocSize;
  std::uint32_t maxHardwareContexts;
  std::uint32_t maxCommandQueuePriority;
  std::uint32_t numThreadsPerEU;
  std::uint32_t physicalEUSimdWidth;
  std::uint32_t numEUsPerSubslice;
  std::uint32_t numSubslicesPerSlice;
  std::uint32_t numSlices;
  std::uint64_t timerResolution;
  std::uint32_t timestampValidBits;
  std::uint32_t kernelTimestampValidBits;
  std::uint8_t uuid[16];
  char name[256];
};

struct ze_device_ip_version_ext_t {
  int stype;
  const void* pNext;
  std::uint32_t ipVersion;
};

struct ze_device_compute_properties_t {
  int stype;
  void* pNext;
  std::uint32_t maxTotalGroupSize;
  std::uint32_t maxGroupSizeX, maxGroupSizeY, maxGroupSizeZ;
  std::uint32_t maxGroupCountX, maxGroupCountY, maxGroupCountZ;
  std::uint32_t maxSharedLocalMemory;
  std::uint32_t numSubGroupSizes;
  std::uint32_t subGroupSizes[8];
};

struct ze_device_image_properties_t {
  int stype;
  void* pNext;
  std::uint32_t maxImageDims1D, maxImageDims2D, maxImageDims3D;
  std::uint64_t maxImageBufferSize;
  std::uint32_t maxImageArraySlices;
  std::uint32_t maxSamplers;
  std::uint32_t maxReadImageArgs, maxWriteImageArgs;
};

struct ze_device_module_properties_t {
  int stype;
  void* pNext;
  std::uint32_t spirvVersionSupported;
  std::uint32_t flags;
  std::uint32_t fp16flags, fp32flags, fp64flags;
  std::uint32_t maxArgumentsSize;
  std::uint32_t printfBufferSize;
  std::uint8_t nativeKernelSupported[16];
};

struct ze_command_queue_group_properties_t {
  int stype;
  void* pNext;
  std::uint32_t flags;
  std::size_t maxMemoryFillPatternSize;
  std::uint32_t numQueues;
};

struct ze_driver_properties_t {
  int stype;
  void* pNext;
  std::uint8_t uuid[16];
  std::uint32_t driverVersion;
};

struct ze_driver_extension_properties_t {
  char name[256];
  std::uint32_t version;
};

struct ze_context_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t flags;
};

struct ze_command_queue_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t ordinal;
  std::uint32_t index;
  std::uint32_t flags;
  int mode;
  int priority;
};

struct ze_device_mem_alloc_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t flags;
  std::uint32_t ordinal;
};

struct ze_host_mem_alloc_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t flags;
};

// ze_memory_type_t
inline constexpr int ZE_MEMORY_TYPE_UNKNOWN = 0;  // not memory of the context asked
inline constexpr int ZE_MEMORY_TYPE_HOST = 1;
inline constexpr int ZE_MEMORY_TYPE_DEVICE = 2;
inline constexpr int ZE_MEMORY_TYPE_SHARED = 3;

struct ze_memory_allocation_properties_t {
  int stype;
  void* pNext;
  int type;
  std::uint64_t id;
  std::uint64_t pageSize;
};

struct ze_memory_free_ext_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t freePolicy;
};

struct ze_module_constants_t {
  std::uint32_t numConstants;
  const std::uint32_t* pConstantIds;
  const void** pConstantValues;
};

struct ze_module_desc_t {
  int stype;
  const void* pNext;
  int format;
  std::size_t inputSize;
  const std::uint8_t* pInputModule;
  const char* pBuildFlags;
  const ze_module_constants_t* pConstants;
};

struct ze_kernel_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t flags;
  const char* pKernelName;
};

struct ze_group_count_t {
  std::uint32_t groupCountX, groupCountY, groupCountZ;
};

struct ze_event_pool_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t flags;
  std::uint32_t count;
};

struct ze_event_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t index;
  std::uint32_t signal;
  std::uint32_t wait;
};

struct ze_image_format_t {
  int layout;
  int type;
  int x, y, z, w;
};

struct ze_image_desc_t {
  int stype;
  const void* pNext;
  std::uint32_t flags;  // 0: read-only in kernels
  int type;
  ze_image_format_t format;
  std::uint64_t width;
  std::uint32_t height;
  std::uint32_t depth;
  std::uint32_t arraylevels;
  std::uint32_t miplevels;
};

struct ze_image_region_t {
  std::uint32_t originX, originY, originZ;
  std::uint32_t width, height, depth;
};

// The entry points Tack calls. The last two are optional: a loader without
// them still works, with a synchronous list and waiting frees.
// The entry points Tack calls, as the loader exports them: X(name, result, parameters).
// clang-format off
#define TACK_LEVEL_ZERO_ENTRY_POINTS(X)                                                                                \
  X(zeInit, ze_result_t, (std::uint32_t flags))                                                                        \
  X(zeDriverGet, ze_result_t, (std::uint32_t* count, ze_driver_handle_t* drivers))                                     \
  X(zeDriverGetApiVersion, ze_result_t, (ze_driver_handle_t driver, std::uint32_t* version))                           \
  X(zeDriverGetProperties, ze_result_t, (ze_driver_handle_t driver, ze_driver_properties_t* props))                    \
  X(zeDriverGetExtensionProperties, ze_result_t,                                                                       \
    (ze_driver_handle_t driver, std::uint32_t* count, ze_driver_extension_properties_t* props))                        \
  X(zeDeviceGet, ze_result_t, (ze_driver_handle_t driver, std::uint32_t* count, ze_device_handle_t* devices))          \
  X(zeDeviceGetProperties, ze_result_t, (ze_device_handle_t device, ze_device_properties_t* props))                    \
  X(zeDeviceGetComputeProperties, ze_result_t, (ze_device_handle_t device, ze_device_compute_properties_t* props))     \
  X(zeDeviceGetImageProperties, ze_result_t, (ze_device_handle_t device, ze_device_image_properties_t* props))         \
  X(zeDeviceGetModuleProperties, ze_result_t, (ze_device_handle_t device, ze_device_module_properties_t* props))       \
  X(zeDeviceGetCommandQueueGroupProperties, ze_result_t,                                                               \
    (ze_device_handle_t device, std::uint32_t* count, ze_command_queue_group_properties_t* props))                     \
  X(zeContextCreate, ze_result_t,                                                                                      \
    (ze_driver_handle_t driver, const ze_context_desc_t* desc, ze_context_handle_t* context))                          \
  X(zeContextDestroy, ze_result_t, (ze_context_handle_t context))                                                      \
  X(zeCommandListCreateImmediate, ze_result_t,                                                                         \
    (ze_context_handle_t context, ze_device_handle_t device, const ze_command_queue_desc_t* desc,                      \
     ze_command_list_handle_t* list))                                                                                  \
  X(zeCommandListDestroy, ze_result_t, (ze_command_list_handle_t list))                                                \
  X(zeCommandListAppendBarrier, ze_result_t,                                                                           \
    (ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t wait_count, ze_event_handle_t* waits))     \
  X(zeCommandListAppendMemoryCopy, ze_result_t,                                                                        \
    (ze_command_list_handle_t list, void* dst, const void* src, std::size_t bytes, ze_event_handle_t signal,           \
     std::uint32_t wait_count, ze_event_handle_t* waits))                                                              \
  X(zeCommandListAppendMemoryFill, ze_result_t,                                                                        \
    (ze_command_list_handle_t list, void* ptr, const void* pattern, std::size_t pattern_size, std::size_t bytes,       \
     ze_event_handle_t signal, std::uint32_t wait_count, ze_event_handle_t* waits))                                    \
  X(zeCommandListAppendLaunchKernel, ze_result_t,                                                                      \
    (ze_command_list_handle_t list, ze_kernel_handle_t kernel, const ze_group_count_t* groups,                         \
     ze_event_handle_t signal, std::uint32_t wait_count, ze_event_handle_t* waits))                                    \
  X(zeMemAllocDevice, ze_result_t,                                                                                     \
    (ze_context_handle_t context, const ze_device_mem_alloc_desc_t* desc, std::size_t bytes, std::size_t alignment,    \
     ze_device_handle_t device, void** ptr))                                                                           \
  X(zeMemAllocHost, ze_result_t,                                                                                       \
    (ze_context_handle_t context, const ze_host_mem_alloc_desc_t* desc, std::size_t bytes, std::size_t alignment,      \
     void** ptr))                                                                                                      \
  X(zeMemFree, ze_result_t, (ze_context_handle_t context, void* ptr))                                                  \
  /* Memory from outside Tack (array_from_ptr): its kind, device and extent. */                                       \
  X(zeMemGetAllocProperties, ze_result_t,                                                                              \
    (ze_context_handle_t context, const void* ptr, ze_memory_allocation_properties_t* props,                          \
     ze_device_handle_t* device))                                                                                      \
  X(zeMemGetAddressRange, ze_result_t,                                                                                 \
    (ze_context_handle_t context, const void* ptr, void** base, std::size_t* size))                                    \
  X(zeModuleCreate, ze_result_t,                                                                                       \
    (ze_context_handle_t context, ze_device_handle_t device, const ze_module_desc_t* desc, ze_module_handle_t* module, \
     ze_module_build_log_handle_t* log))                                                                               \
  X(zeModuleDestroy, ze_result_t, (ze_module_handle_t module))                                                         \
  X(zeModuleBuildLogGetString, ze_result_t, (ze_module_build_log_handle_t log, std::size_t* size, char* text))         \
  X(zeModuleBuildLogDestroy, ze_result_t, (ze_module_build_log_handle_t log))                                          \
  X(zeModuleGetNativeBinary, ze_result_t, (ze_module_handle_t module, std::size_t* size, std::uint8_t* binary))        \
  X(zeKernelCreate, ze_result_t,                                                                                       \
    (ze_module_handle_t module, const ze_kernel_desc_t* desc, ze_kernel_handle_t* kernel))                             \
  X(zeKernelDestroy, ze_result_t, (ze_kernel_handle_t kernel))                                                         \
  X(zeKernelSetArgumentValue, ze_result_t,                                                                             \
    (ze_kernel_handle_t kernel, std::uint32_t index, std::size_t size, const void* value))                             \
  X(zeKernelSetGroupSize, ze_result_t, (ze_kernel_handle_t kernel, std::uint32_t x, std::uint32_t y, std::uint32_t z)) \
  X(zeEventPoolCreate, ze_result_t,                                                                                    \
    (ze_context_handle_t context, const ze_event_pool_desc_t* desc, std::uint32_t device_count,                        \
     ze_device_handle_t* devices, ze_event_pool_handle_t* pool))                                                       \
  X(zeEventPoolDestroy, ze_result_t, (ze_event_pool_handle_t pool))                                                    \
  X(zeEventCreate, ze_result_t, (ze_event_pool_handle_t pool, const ze_event_desc_t* desc, ze_event_handle_t* event))  \
  X(zeEventDestroy, ze_result_t, (ze_event_handle_t event))                                                            \
  X(zeEventHostSynchronize, ze_result_t, (ze_event_handle_t event, std::uint64_t timeout_ns))                          \
  X(zeEventHostReset, ze_result_t, (ze_event_handle_t event))

// Optional (API 1.6, the memory-free-policies extension, and images, which a loader without them leaves to
// software sampling), resolved only once every entry above was: nullptr where the loader lacks them.
#define TACK_LEVEL_ZERO_OPTIONAL_ENTRY_POINTS(X)                                                                       \
  X(zeCommandListHostSynchronize, ze_result_t, (ze_command_list_handle_t list, std::uint64_t timeout_ns))              \
  X(zeMemFreeExt, ze_result_t, (ze_context_handle_t context, const ze_memory_free_ext_desc_t* desc, void* ptr))      \
  X(zeImageCreate, ze_result_t,                                                                                        \
    (ze_context_handle_t context, ze_device_handle_t device, const ze_image_desc_t* desc, ze_image_handle_t* image))  \
  X(zeImageDestroy, ze_result_t, (ze_image_handle_t image))                                                            \
  X(zeCommandListAppendImageCopyFromMemory, ze_result_t,                                                               \
    (ze_command_list_handle_t list, ze_image_handle_t image, const void* src, const ze_image_region_t* region,        \
     ze_event_handle_t signal, std::uint32_t wait_count, ze_event_handle_t* waits))
// clang-format on

// The table: a function pointer per row, in the lists' order, then the file they came from.
struct Api {
  TACK_LEVEL_ZERO_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
  TACK_LEVEL_ZERO_OPTIONAL_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
  std::string library;  // the file loaded
};

// The process's loader, loaded and zeInit(0)-ed once; nullptr with the reason
// in *why (when given: no library, a missing symbol, zeInit refused) when there
// is none. TACK_LEVEL_ZERO_LIBRARY names another file to load instead of
// libze_loader.so.1 (tests point it at a stand-in loader). The backend's edge
// (backends/level_zero/level_zero_driver.hpp) turns a failure into BackendUnavailable.
const Api* load(std::string* why);

// True once the process has begun to exit: Level Zero cleanup then can crash,
// because the driver may already have torn itself down, so destructors skip it.
bool exiting();

// "ZE_RESULT_ERROR_DEVICE_LOST" (or "ze_result_t 0x...") for a result code.
std::string error_text(ze_result_t code);

// The failure record of `call` having returned `code`: nullopt for ZE_RESULT_SUCCESS.
std::optional<Failure> failure(ze_result_t code, const char* call);

}  // namespace tack::drivers::ze
