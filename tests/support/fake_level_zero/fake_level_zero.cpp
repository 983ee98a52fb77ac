// The stand-in Level Zero loader: see fake_level_zero.hpp.
#include "fake_level_zero.hpp"

#include "drivers/level_zero_api.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace tack::drivers::ze;

// The handles' types, declared (incomplete) in Tack's namespace by level_zero_api.hpp.
namespace tack::drivers::ze {
struct _ze_driver_handle_t {};
struct _ze_device_handle_t {};
struct _ze_context_handle_t {};
struct _ze_command_list_handle_t {
  int mode = 0;
};
struct _ze_module_handle_t {
  std::string bytes;
};
struct _ze_module_build_log_handle_t {
  std::string text;
};
struct _ze_kernel_handle_t {
  std::string name;
  std::map<std::uint32_t, std::string> args;
  std::uint32_t group[3] = {1, 1, 1};
};
struct _ze_event_pool_handle_t {};
struct _ze_image_handle_t {
  std::uint64_t width = 0;
  std::uint32_t height = 0, depth = 0;
  std::string texels;  // what the last copy into it wrote
};
struct _ze_event_handle_t {
  bool signaled = false;
};
}  // namespace tack::drivers::ze

namespace {

struct Alloc {
  std::size_t bytes;
  bool host;
  ze_context_handle_t context = nullptr;
  ze_device_handle_t device = nullptr;  // nullptr for host memory and shared memory of no device
  int type = ZE_MEMORY_TYPE_DEVICE;
};

struct Op {
  std::string what;
  FakeZeOp op{};
  std::string payload;
};

struct State {
  std::recursive_mutex mutex;
  _ze_driver_handle_t driver;
  _ze_device_handle_t device;
  _ze_device_handle_t other_device;  // never reported by zeDeviceGet
  std::uint32_t max_total = 1024, max_x = 1024, max_count = 65535;
  std::uint32_t fp64 = 0x3f, module_flags = 1u << 2, device_id = 0x0bd5, api_version = (1u << 16) | 6u;
  bool free_ext = true, refuse_native = false;
  std::uint32_t max_image_dims_3d = 2048, max_samplers = 0;  // as Xe-HPC: no samplers
  int images = 0;
  std::map<std::string, std::pair<int, int>> failures;  // call -> (code, times)
  std::map<std::string, int> counts;
  std::vector<Op> log;
  std::vector<FakeZeLaunch> launches;
  std::map<const void*, Alloc> allocs;
  int contexts = 0;
  std::string build_flags, misuse, entry_text;
};

State& st() {
  static State* s = new State;  // never destroyed: the backend may call in during exit
  return *s;
}

// Counts the call and returns an injected failure, or success.
ze_result_t enter(const char* call) {
  State& s = st();
  ++s.counts[call];
  auto it = s.failures.find(call);
  if (it == s.failures.end() || it->second.second == 0) return ZE_RESULT_SUCCESS;
  if (it->second.second > 0) --it->second.second;
  return it->second.first;
}

// The allocation containing [p, p + bytes), or nullptr.
const Alloc* find_alloc(const void* p, std::size_t bytes, const void** base = nullptr) {
  auto& allocs = st().allocs;
  auto it = allocs.upper_bound(p);
  if (it == allocs.begin()) return nullptr;
  --it;
  const auto* b = static_cast<const unsigned char*>(it->first);
  const auto* q = static_cast<const unsigned char*>(p);
  if (q < b || q + bytes > b + it->second.bytes) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

int kind_of(const void* p, std::size_t bytes) {
  const Alloc* a = find_alloc(p, bytes);
  return a ? (a->host ? 1 : 2) : 0;
}

void record(const std::string& what, FakeZeOp op = {}, std::string payload = {}) {
  st().log.push_back({what, op, std::move(payload)});
}

void misuse(const std::string& text) { st().misuse += text + "\n"; }

std::atomic<std::uint64_t> g_last_wait_timeout{0};

#define FAKE_ENTER(name)                   \
  std::lock_guard lock_(st().mutex);       \
  if (ze_result_t r_ = enter(#name); r_) { \
    return r_;                             \
  }

}  // namespace

extern "C" {

void fake_ze_reset() {
  State& s = st();
  std::lock_guard lock(s.mutex);
  s.max_total = 1024;
  s.max_x = 1024;
  s.max_count = 65535;
  s.fp64 = 0x3f;
  s.module_flags = 1u << 2;
  s.device_id = 0x0bd5;
  s.api_version = (1u << 16) | 6u;
  s.free_ext = true;
  s.refuse_native = false;
  s.max_image_dims_3d = 2048;
  s.max_samplers = 0;
  s.failures.clear();
  s.counts.clear();
  s.log.clear();
  s.launches.clear();
  s.misuse.clear();
}

void fake_ze_set_compute(std::uint32_t total, std::uint32_t x, std::uint32_t count) {
  std::lock_guard lock(st().mutex);
  st().max_total = total;
  st().max_x = x;
  st().max_count = count;
}
void fake_ze_set_module(std::uint32_t fp64, std::uint32_t flags) {
  std::lock_guard lock(st().mutex);
  st().fp64 = fp64;
  st().module_flags = flags;
}
void fake_ze_set_device_id(std::uint32_t id) {
  std::lock_guard lock(st().mutex);
  st().device_id = id;
}
void fake_ze_set_api_version(std::uint32_t v) {
  std::lock_guard lock(st().mutex);
  st().api_version = v;
}
void fake_ze_set_free_policies_extension(int present) {
  std::lock_guard lock(st().mutex);
  st().free_ext = present != 0;
}
void fake_ze_refuse_native_binaries(int refuse) {
  std::lock_guard lock(st().mutex);
  st().refuse_native = refuse != 0;
}
void fake_ze_set_images(std::uint32_t max_image_dims_3d, std::uint32_t max_samplers) {
  std::lock_guard lock(st().mutex);
  st().max_image_dims_3d = max_image_dims_3d;
  st().max_samplers = max_samplers;
}
int fake_ze_live_images() {
  std::lock_guard lock(st().mutex);
  return st().images;
}
void fake_ze_fail(const char* call, int code, int times) {
  std::lock_guard lock(st().mutex);
  st().failures[call] = {code, times};
}
std::uint64_t fake_ze_last_wait_timeout() { return g_last_wait_timeout.load(); }
int fake_ze_count(const char* call) {
  std::lock_guard lock(st().mutex);
  auto it = st().counts.find(call);
  return it == st().counts.end() ? 0 : it->second;
}
int fake_ze_log_size() {
  std::lock_guard lock(st().mutex);
  return static_cast<int>(st().log.size());
}
const char* fake_ze_log_entry(int i) {
  std::lock_guard lock(st().mutex);
  if (i < 0 || i >= static_cast<int>(st().log.size())) return "";
  st().entry_text = st().log[i].what;
  return st().entry_text.c_str();
}
int fake_ze_log_op(int i, FakeZeOp* out) {
  std::lock_guard lock(st().mutex);
  if (i < 0 || i >= static_cast<int>(st().log.size())) return 0;
  *out = st().log[i].op;
  out->payload = st().log[i].payload.empty() ? nullptr : st().log[i].payload.data();
  return 1;
}
int fake_ze_launch_count() {
  std::lock_guard lock(st().mutex);
  return static_cast<int>(st().launches.size());
}
int fake_ze_launch(int i, FakeZeLaunch* out) {
  std::lock_guard lock(st().mutex);
  if (i < 0 || i >= static_cast<int>(st().launches.size())) return 0;
  *out = st().launches[i];
  return 1;
}
int fake_ze_live_allocations() {
  std::lock_guard lock(st().mutex);
  return static_cast<int>(st().allocs.size());
}
ze_context_handle_t fake_ze_context_of(const void* ptr) {
  std::lock_guard lock(st().mutex);
  const Alloc* a = find_alloc(ptr, 1);
  return a ? a->context : nullptr;
}
ze_device_handle_t fake_ze_device(int other) {
  std::lock_guard lock(st().mutex);
  return other ? &st().other_device : &st().device;
}
int fake_ze_live_contexts() {
  std::lock_guard lock(st().mutex);
  return st().contexts;
}
const char* fake_ze_last_build_flags() {
  std::lock_guard lock(st().mutex);
  return st().build_flags.c_str();
}
const char* fake_ze_misuse() {
  std::lock_guard lock(st().mutex);
  return st().misuse.c_str();
}

// ---- the API ----------------------------------------------------------------------

ze_result_t zeInit(std::uint32_t) {
  FAKE_ENTER(zeInit);
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDriverGet(std::uint32_t* count, ze_driver_handle_t* drivers) {
  FAKE_ENTER(zeDriverGet);
  if (drivers && *count >= 1) drivers[0] = &st().driver;
  *count = 1;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDriverGetApiVersion(ze_driver_handle_t, std::uint32_t* version) {
  FAKE_ENTER(zeDriverGetApiVersion);
  *version = st().api_version;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDriverGetProperties(ze_driver_handle_t, ze_driver_properties_t* p) {
  FAKE_ENTER(zeDriverGetProperties);
  p->driverVersion = 0x01034567;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDriverGetExtensionProperties(ze_driver_handle_t, std::uint32_t* count,
                                           ze_driver_extension_properties_t* props) {
  FAKE_ENTER(zeDriverGetExtensionProperties);
  std::vector<const char*> names = {"ZE_extension_device_ip_version"};
  if (st().free_ext) names.push_back("ZE_extension_memory_free_policies");
  if (props) {
    for (std::uint32_t i = 0; i < *count && i < names.size(); ++i) {
      std::memset(&props[i], 0, sizeof props[i]);
      std::strncpy(props[i].name, names[i], sizeof props[i].name - 1);
      props[i].version = 1u << 16;
    }
  }
  *count = static_cast<std::uint32_t>(names.size());
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGet(ze_driver_handle_t, std::uint32_t* count, ze_device_handle_t* devices) {
  FAKE_ENTER(zeDeviceGet);
  if (devices && *count >= 1) devices[0] = &st().device;
  *count = 1;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetProperties(ze_device_handle_t, ze_device_properties_t* p) {
  FAKE_ENTER(zeDeviceGetProperties);
  if (p->stype != ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES) misuse("zeDeviceGetProperties: wrong stype");
  p->type = 1;
  p->vendorId = 0x8086;
  p->deviceId = st().device_id;
  p->maxMemAllocSize = std::uint64_t{1} << 32;
  std::strncpy(p->name, "Fake Intel Data Center GPU", sizeof p->name - 1);
  if (p->pNext) {
    auto* ip = static_cast<ze_device_ip_version_ext_t*>(p->pNext);
    if (ip->stype == ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT) ip->ipVersion = 0x030f0007;
  }
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetComputeProperties(ze_device_handle_t, ze_device_compute_properties_t* p) {
  FAKE_ENTER(zeDeviceGetComputeProperties);
  if (p->stype != ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES) misuse("zeDeviceGetComputeProperties: wrong stype");
  p->maxTotalGroupSize = st().max_total;
  p->maxGroupSizeX = st().max_x;
  p->maxGroupSizeY = p->maxGroupSizeZ = 1024;
  p->maxGroupCountX = st().max_count;
  p->maxGroupCountY = p->maxGroupCountZ = 65535;
  p->maxSharedLocalMemory = 65536;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetImageProperties(ze_device_handle_t, ze_device_image_properties_t* p) {
  FAKE_ENTER(zeDeviceGetImageProperties);
  p->maxImageDims3D = st().max_image_dims_3d;
  p->maxSamplers = st().max_samplers;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetModuleProperties(ze_device_handle_t, ze_device_module_properties_t* p) {
  FAKE_ENTER(zeDeviceGetModuleProperties);
  if (p->stype != ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES) misuse("zeDeviceGetModuleProperties: wrong stype");
  p->fp64flags = st().fp64;
  p->flags = st().module_flags;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t, std::uint32_t* count,
                                                   ze_command_queue_group_properties_t* props) {
  FAKE_ENTER(zeDeviceGetCommandQueueGroupProperties);
  // A copy-only group first, then the compute group, as on Intel's GPUs.
  if (props) {
    if (*count >= 1) {
      props[0].flags = 1u << 1;  // ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
      props[0].maxMemoryFillPatternSize = 4;
      props[0].numQueues = 1;
    }
    if (*count >= 2) {
      props[1].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | (1u << 1);
      props[1].maxMemoryFillPatternSize = 128;
      props[1].numQueues = 4;
    }
  }
  *count = 2;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeContextCreate(ze_driver_handle_t, const ze_context_desc_t*, ze_context_handle_t* c) {
  FAKE_ENTER(zeContextCreate);
  *c = new _ze_context_handle_t;
  ++st().contexts;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeContextDestroy(ze_context_handle_t c) {
  FAKE_ENTER(zeContextDestroy);
  delete c;
  --st().contexts;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListCreateImmediate(ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t* d,
                                         ze_command_list_handle_t* list) {
  FAKE_ENTER(zeCommandListCreateImmediate);
  if (d->ordinal != 1) misuse("zeCommandListCreateImmediate: not the compute queue group");
  if (d->flags & (1u << 1)) misuse("zeCommandListCreateImmediate: an in-order list");
  *list = new _ze_command_list_handle_t{d->mode};
  record(d->mode == ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS ? "list_async" : "list_sync_mode");
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListDestroy(ze_command_list_handle_t list) {
  FAKE_ENTER(zeCommandListDestroy);
  delete list;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t, ze_event_handle_t signal, std::uint32_t,
                                       ze_event_handle_t*) {
  FAKE_ENTER(zeCommandListAppendBarrier);
  if (signal) signal->signaled = true;
  record(signal ? "barrier_event" : "barrier");
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t, void* dst, const void* src, std::size_t bytes,
                                          ze_event_handle_t, std::uint32_t, ze_event_handle_t*) {
  FAKE_ENTER(zeCommandListAppendMemoryCopy);
  if (!find_alloc(dst, bytes) && !find_alloc(src, bytes)) misuse("zeCommandListAppendMemoryCopy: no allocation");
  std::memcpy(dst, src, bytes);
  record("copy", {dst, src, bytes, kind_of(src, bytes), nullptr}, std::string(static_cast<const char*>(src), bytes));
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeImageCreate(ze_context_handle_t, ze_device_handle_t, const ze_image_desc_t* d, ze_image_handle_t* image) {
  FAKE_ENTER(zeImageCreate);
  if (d->stype != ZE_STRUCTURE_TYPE_IMAGE_DESC) misuse("zeImageCreate: wrong stype");
  if (d->type != ZE_IMAGE_TYPE_3D || d->format.layout != ZE_IMAGE_FORMAT_LAYOUT_32 ||
      d->format.type != ZE_IMAGE_FORMAT_TYPE_FLOAT || d->format.x != ZE_IMAGE_FORMAT_SWIZZLE_R)
    misuse("zeImageCreate: not a 3D image of one 32-bit float channel");
  if (d->width == 0 || d->height == 0 || d->depth == 0 || d->width > st().max_image_dims_3d ||
      d->height > st().max_image_dims_3d || d->depth > st().max_image_dims_3d)
    misuse("zeImageCreate: extent outside maxImageDims3D");
  *image = new _ze_image_handle_t{d->width, d->height, d->depth, {}};
  ++st().images;
  record("image_create", {*image, nullptr, static_cast<std::size_t>(d->width * d->height * d->depth * 4), 0, nullptr});
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeImageDestroy(ze_image_handle_t image) {
  FAKE_ENTER(zeImageDestroy);
  record("image_destroy", {image, nullptr, 0, 0, nullptr});
  --st().images;
  delete image;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendImageCopyFromMemory(ze_command_list_handle_t, ze_image_handle_t image, const void* src,
                                                   const ze_image_region_t* region, ze_event_handle_t, std::uint32_t,
                                                   ze_event_handle_t*) {
  FAKE_ENTER(zeCommandListAppendImageCopyFromMemory);
  if (region) misuse("zeCommandListAppendImageCopyFromMemory: a region (Tack copies whole images)");
  const std::size_t bytes = static_cast<std::size_t>(image->width * image->height * image->depth * 4);
  if (!find_alloc(src, bytes)) misuse("zeCommandListAppendImageCopyFromMemory: source outside an allocation");
  image->texels.assign(static_cast<const char*>(src), bytes);
  record("image_copy", {image, src, bytes, kind_of(src, bytes), nullptr}, image->texels);
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t, void* ptr, const void* pattern, std::size_t size,
                                          std::size_t bytes, ze_event_handle_t, std::uint32_t, ze_event_handle_t*) {
  FAKE_ENTER(zeCommandListAppendMemoryFill);
  if (!find_alloc(ptr, bytes)) misuse("zeCommandListAppendMemoryFill: outside an allocation");
  if (size == 0 || (size & (size - 1)) || bytes % size) misuse("zeCommandListAppendMemoryFill: bad pattern size");
  for (std::size_t at = 0; at + size <= bytes; at += size) std::memcpy(static_cast<char*>(ptr) + at, pattern, size);
  record("fill", {ptr, pattern, bytes, 0, nullptr}, std::string(static_cast<const char*>(pattern), size));
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t, ze_kernel_handle_t k,
                                            const ze_group_count_t* groups, ze_event_handle_t, std::uint32_t,
                                            ze_event_handle_t*) {
  FAKE_ENTER(zeCommandListAppendLaunchKernel);
  FakeZeLaunch l{};
  std::strncpy(l.name, k->name.c_str(), sizeof l.name - 1);
  l.groups[0] = groups->groupCountX;
  l.groups[1] = groups->groupCountY;
  l.groups[2] = groups->groupCountZ;
  for (int i = 0; i < 3; ++i) l.group_size[i] = k->group[i];
  for (const auto& [index, value] : k->args) {
    if (index >= 32) continue;
    l.arg_count = std::max<int>(l.arg_count, static_cast<int>(index) + 1);
    l.arg_size[index] = value.size();
    std::memcpy(l.args[index], value.data(), std::min<std::size_t>(8, value.size()));
  }
  l.log_index = static_cast<int>(st().log.size());
  st().launches.push_back(l);
  record("launch " + k->name);
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t, std::uint64_t timeout) {
  g_last_wait_timeout.store(timeout);
  FAKE_ENTER(zeCommandListHostSynchronize);
  record("list_sync");
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemAllocDevice(ze_context_handle_t c, const ze_device_mem_alloc_desc_t* d, std::size_t bytes,
                             std::size_t alignment, ze_device_handle_t device, void** ptr) {
  FAKE_ENTER(zeMemAllocDevice);
  if (d->stype != ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC) misuse("zeMemAllocDevice: wrong stype");
  *ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  st().allocs[*ptr] = {bytes, false, c, device, ZE_MEMORY_TYPE_DEVICE};
  record("alloc_device", {*ptr, nullptr, bytes, 0, nullptr});
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemAllocHost(ze_context_handle_t c, const ze_host_mem_alloc_desc_t* d, std::size_t bytes, std::size_t,
                           void** ptr) {
  FAKE_ENTER(zeMemAllocHost);
  if (d->stype != ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC) misuse("zeMemAllocHost: wrong stype");
  *ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  st().allocs[*ptr] = {bytes, true, c, nullptr, ZE_MEMORY_TYPE_HOST};
  record("alloc_host", {*ptr, nullptr, bytes, 1, nullptr});
  return ZE_RESULT_SUCCESS;
}
namespace {
ze_result_t free_ptr(void* ptr, const char* what) {
  auto it = st().allocs.find(ptr);
  if (it == st().allocs.end()) {
    misuse(std::string(what) + ": not a live allocation");
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  record(what, {ptr, nullptr, it->second.bytes, 0, nullptr});
  st().allocs.erase(it);
  std::free(ptr);
  return ZE_RESULT_SUCCESS;
}
}  // namespace
// Not in Tack's table: for tests that hand the backend shared memory.
ze_result_t zeMemAllocShared(ze_context_handle_t c, const ze_device_mem_alloc_desc_t*, const ze_host_mem_alloc_desc_t*,
                             std::size_t bytes, std::size_t, ze_device_handle_t device, void** ptr) {
  FAKE_ENTER(zeMemAllocShared);
  *ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  st().allocs[*ptr] = {bytes, false, c, device, ZE_MEMORY_TYPE_SHARED};
  record("alloc_shared", {*ptr, nullptr, bytes, 0, nullptr});
  return ZE_RESULT_SUCCESS;
}
// Memory of another context is unknown to this one, as on a real driver.
ze_result_t zeMemGetAllocProperties(ze_context_handle_t c, const void* ptr, ze_memory_allocation_properties_t* p,
                                    ze_device_handle_t* device) {
  FAKE_ENTER(zeMemGetAllocProperties);
  if (p->stype != ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES) misuse("zeMemGetAllocProperties: wrong stype");
  const Alloc* a = find_alloc(ptr, 1);
  if (a && a->context != c) a = nullptr;
  p->type = a ? a->type : ZE_MEMORY_TYPE_UNKNOWN;
  p->id = 0;
  p->pageSize = 4096;
  if (device) *device = a ? a->device : nullptr;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemGetAddressRange(ze_context_handle_t c, const void* ptr, void** base, std::size_t* size) {
  FAKE_ENTER(zeMemGetAddressRange);
  const void* b = nullptr;
  const Alloc* a = find_alloc(ptr, 1, &b);
  if (!a || a->context != c) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (base) *base = const_cast<void*>(b);
  if (size) *size = a->bytes;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemFree(ze_context_handle_t, void* ptr) {
  FAKE_ENTER(zeMemFree);
  return free_ptr(ptr, "free");
}
ze_result_t zeMemFreeExt(ze_context_handle_t, const ze_memory_free_ext_desc_t* d, void* ptr) {
  FAKE_ENTER(zeMemFreeExt);
  if (!st().free_ext) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  if (d->stype != ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC) misuse("zeMemFreeExt: wrong stype");
  return free_ptr(ptr, d->freePolicy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE ? "free_defer" : "free");
}
ze_result_t zeModuleCreate(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t* d,
                           ze_module_handle_t* module, ze_module_build_log_handle_t* log) {
  FAKE_ENTER(zeModuleCreate);
  std::string bytes(reinterpret_cast<const char*>(d->pInputModule), d->inputSize);
  st().build_flags = d->pBuildFlags ? d->pBuildFlags : "";
  auto fail = [&](ze_result_t r, const std::string& why) {
    if (log) *log = new _ze_module_build_log_handle_t{why};
    return r;
  };
  if (d->format == ZE_MODULE_FORMAT_NATIVE) {
    record("module_native");
    if (st().refuse_native || bytes.rfind("FAKE-NATIVE\n", 0) != 0)
      return fail(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "native binary refused");
  } else {
    record("module_spirv");
    const std::uint32_t magic = 0x07230203;
    if (bytes.size() < 4 || std::memcmp(bytes.data(), &magic, 4) != 0)
      return fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "error: not SPIR-V");
  }
  *module = new _ze_module_handle_t{std::move(bytes)};
  if (log) *log = new _ze_module_build_log_handle_t{""};
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleDestroy(ze_module_handle_t m) {
  FAKE_ENTER(zeModuleDestroy);
  delete m;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t log, std::size_t* size, char* text) {
  FAKE_ENTER(zeModuleBuildLogGetString);
  if (text) std::memcpy(text, log->text.c_str(), std::min(*size, log->text.size() + 1));
  *size = log->text.size() + 1;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t log) {
  FAKE_ENTER(zeModuleBuildLogDestroy);
  delete log;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleGetNativeBinary(ze_module_handle_t m, std::size_t* size, std::uint8_t* binary) {
  FAKE_ENTER(zeModuleGetNativeBinary);
  const std::string native = m->bytes.rfind("FAKE-NATIVE\n", 0) == 0 ? m->bytes : "FAKE-NATIVE\n" + m->bytes;
  if (binary) std::memcpy(binary, native.data(), std::min(*size, native.size()));
  *size = native.size();
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelCreate(ze_module_handle_t m, const ze_kernel_desc_t* d, ze_kernel_handle_t* k) {
  FAKE_ENTER(zeKernelCreate);
  if (m->bytes.find(d->pKernelName) == std::string::npos) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  *k = new _ze_kernel_handle_t{d->pKernelName, {}, {1, 1, 1}};
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelDestroy(ze_kernel_handle_t k) {
  FAKE_ENTER(zeKernelDestroy);
  delete k;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t k, std::uint32_t index, std::size_t size, const void* value) {
  FAKE_ENTER(zeKernelSetArgumentValue);
  k->args[index] = std::string(static_cast<const char*>(value), size);
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t k, std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  FAKE_ENTER(zeKernelSetGroupSize);
  if (x > st().max_x || x * y * z > st().max_total) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  k->group[0] = x;
  k->group[1] = y;
  k->group[2] = z;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventPoolCreate(ze_context_handle_t, const ze_event_pool_desc_t* d, std::uint32_t, ze_device_handle_t*,
                              ze_event_pool_handle_t* pool) {
  FAKE_ENTER(zeEventPoolCreate);
  if (!(d->flags & ZE_EVENT_POOL_FLAG_HOST_VISIBLE)) misuse("zeEventPoolCreate: events not host-visible");
  *pool = new _ze_event_pool_handle_t;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t pool) {
  FAKE_ENTER(zeEventPoolDestroy);
  delete pool;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventCreate(ze_event_pool_handle_t, const ze_event_desc_t*, ze_event_handle_t* e) {
  FAKE_ENTER(zeEventCreate);
  *e = new _ze_event_handle_t;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventDestroy(ze_event_handle_t e) {
  FAKE_ENTER(zeEventDestroy);
  delete e;
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventHostSynchronize(ze_event_handle_t e, std::uint64_t timeout) {
  g_last_wait_timeout.store(timeout);
  FAKE_ENTER(zeEventHostSynchronize);
  record("event_sync");
  if (!e->signaled) misuse("zeEventHostSynchronize: an event no barrier signals (would wait forever)");
  return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventHostReset(ze_event_handle_t e) {
  FAKE_ENTER(zeEventHostReset);
  e->signaled = false;
  return ZE_RESULT_SUCCESS;
}

}  // extern "C"
