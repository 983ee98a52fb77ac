// The stand-in HIP runtime (fake_hip.hpp).
#include "support/fake_hip/fake_hip.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace fake_hip {

State& state() {
  static State* s = new State;  // never destroyed: Tack may release memory during exit
  return *s;
}

std::vector<std::string> take_calls() {
  std::lock_guard lock(state().mutex);
  std::vector<std::string> out;
  out.swap(state().calls);
  return out;
}

}  // namespace fake_hip

namespace {

void record(const char* name) {
  std::lock_guard lock(fake_hip::state().mutex);
  fake_hip::state().calls.emplace_back(name);
}

int g_current = 0;
int g_stream_tag = 0, g_event_tag = 0, g_module_tag = 0;

}  // namespace

#define FAKE_HIP extern "C" __attribute__((visibility("default"))) int

FAKE_HIP hipInit(unsigned) { return 0; }
FAKE_HIP hipRuntimeGetVersion(int* v) {
  *v = 60443483;  // ROCm 6.4
  return 0;
}
extern "C" __attribute__((visibility("default"))) const char* hipGetErrorName(int e) {
  return e == 0 ? "hipSuccess" : e == 2 ? "hipErrorOutOfMemory" : "hipErrorUnknown";
}
extern "C" __attribute__((visibility("default"))) const char* hipGetErrorString(int e) {
  return e == 0 ? "no error" : "fake error";
}
FAKE_HIP hipGetDeviceCount(int* n) {
  *n = fake_hip::state().device_count;
  return fake_hip::state().device_count ? 0 : 100;
}
FAKE_HIP hipGetDevice(int* d) {
  *d = g_current;
  return 0;
}
FAKE_HIP hipSetDevice(int d) {
  record("hipSetDevice");
  g_current = d;
  return 0;
}
FAKE_HIP hipDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "Fake AMD GPU", static_cast<std::size_t>(length));
  return 0;
}
FAKE_HIP hipDeviceGetAttribute(int* value, int attribute, int) {
  switch (attribute) {
    case 29: *value = fake_hip::state().max_grid_dim_x; return 0;
    case 49:
    case 50:
    case 51: *value = 16384; return 0;
    case 56: *value = 1024; return 0;
    case 63: *value = 104; return 0;
    case 88: *value = fake_hip::state().memory_pools; return 0;
    case 10014: *value = 1; return 0;
    default: return 1;  // hipErrorInvalidValue: Tack asks only for the above
  }
}
FAKE_HIP hipDeviceTotalMem(std::size_t* bytes, int) {
  *bytes = fake_hip::state().total_memory;
  return 0;
}
FAKE_HIP hipGetDevicePropertiesR0600(void* props, int) {
  std::memset(props, 0, 1472);
  std::strcpy(static_cast<char*>(props) + 1160, "gfx90a:sramecc+:xnack-");
  return 0;
}
FAKE_HIP hipStreamCreateWithFlags(void** stream, unsigned flags) {
  record(flags == 0 ? "hipStreamCreateWithFlags(default)" : "hipStreamCreateWithFlags(other)");
  *stream = &g_stream_tag;
  return 0;
}
FAKE_HIP hipStreamDestroy(void*) {
  record("hipStreamDestroy");
  return 0;
}
FAKE_HIP hipEventCreateWithFlags(void** event, unsigned flags) {
  record(flags == 3 ? "hipEventCreateWithFlags(blocking)" : "hipEventCreateWithFlags(other)");
  *event = &g_event_tag;
  return 0;
}
FAKE_HIP hipEventRecord(void*, void*) {
  record("hipEventRecord");
  return 0;
}
FAKE_HIP hipEventSynchronize(void*) {
  record("hipEventSynchronize");
  return 0;
}
FAKE_HIP hipEventQuery(void*) {
  record("hipEventQuery");
  std::lock_guard lock(fake_hip::state().mutex);
  return fake_hip::state().event_query;
}
FAKE_HIP hipEventDestroy(void*) { return 0; }

namespace {
int allocate(void** ptr, std::size_t bytes, const char* name) {
  record(name);
  auto& s = fake_hip::state();
  std::lock_guard lock(s.mutex);
  std::size_t used = 0;
  for (auto& [p, n] : s.live) used += n;
  if (used + bytes > s.total_memory) return 2;
  *ptr = std::calloc(1, bytes);
  s.live[*ptr] = bytes;
  s.device_of[*ptr] = g_current;
  return 0;
}
int release(void* ptr, const char* name) {
  record(name);
  auto& s = fake_hip::state();
  std::lock_guard lock(s.mutex);
  s.live.erase(ptr);
  s.device_of.erase(ptr);
  std::free(ptr);
  return 0;
}

// The live allocation holding p: its base and size, or false.
bool containing(const void* p, void** base, std::size_t* size) {
  auto& s = fake_hip::state();
  auto it = s.live.upper_bound(const_cast<void*>(p));
  if (it == s.live.begin()) return false;
  --it;
  const auto* b = static_cast<const char*>(it->first);
  if (static_cast<const char*>(p) >= b + it->second) return false;
  *base = it->first;
  *size = it->second;
  return true;
}
}  // namespace

FAKE_HIP hipMalloc(void** ptr, std::size_t bytes) { return allocate(ptr, bytes, "hipMalloc"); }
// Only the device ordinal is asked (attribute 9); other memory is hipErrorInvalidValue (1).
FAKE_HIP hipPointerGetAttribute(void* data, int attribute, void* ptr) {
  record("hipPointerGetAttribute");
  std::lock_guard lock(fake_hip::state().mutex);
  void* base = nullptr;
  std::size_t size = 0;
  if (attribute != 9 || !containing(ptr, &base, &size)) return 1;
  *static_cast<int*>(data) = fake_hip::state().device_of[base];
  return 0;
}
FAKE_HIP hipMemGetAddressRange(void** base, std::size_t* size, void* ptr) {
  record("hipMemGetAddressRange");
  std::lock_guard lock(fake_hip::state().mutex);
  return containing(ptr, base, size) ? 0 : 1;
}
FAKE_HIP hipFree(void* ptr) { return release(ptr, "hipFree"); }
FAKE_HIP hipMallocAsync(void** ptr, std::size_t bytes, void*) { return allocate(ptr, bytes, "hipMallocAsync"); }
FAKE_HIP hipFreeAsync(void* ptr, void*) { return release(ptr, "hipFreeAsync"); }
FAKE_HIP hipDeviceGetDefaultMemPool(void** pool, int) {
  static int tag;
  *pool = &tag;
  return 0;
}
FAKE_HIP hipMemPoolSetAttribute(void*, int attribute, void* value) {
  record(attribute == 4 && *static_cast<std::uint64_t*>(value) == UINT64_MAX ? "hipMemPoolSetAttribute(threshold max)"
                                                                             : "hipMemPoolSetAttribute(other)");
  return 0;
}
FAKE_HIP hipMemcpyHtoDAsync(void* dst, void* src, std::size_t bytes, void*) {
  record("hipMemcpyHtoDAsync");
  std::memcpy(dst, src, bytes);
  return 0;
}
FAKE_HIP hipMemcpyDtoHAsync(void* dst, void* src, std::size_t bytes, void*) {
  record("hipMemcpyDtoHAsync");
  std::memcpy(dst, src, bytes);
  return 0;
}
FAKE_HIP hipMemcpyDtoDAsync(void* dst, void* src, std::size_t bytes, void*) {
  record("hipMemcpyDtoDAsync");
  std::memmove(dst, src, bytes);
  return 0;
}
FAKE_HIP hipMemsetD8Async(void* dst, unsigned char v, std::size_t n, void*) {
  record("hipMemsetD8Async");
  std::memset(dst, v, n);
  return 0;
}
FAKE_HIP hipMemsetD16Async(void* dst, unsigned short v, std::size_t n, void*) {
  record("hipMemsetD16Async");
  for (std::size_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(dst) + 2 * i, &v, 2);
  return 0;
}
FAKE_HIP hipMemsetD32Async(void* dst, int v, std::size_t n, void*) {
  record("hipMemsetD32Async");
  for (std::size_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(dst) + 4 * i, &v, 4);
  return 0;
}
FAKE_HIP hipModuleLoadData(void** module, const void*) {
  record("hipModuleLoadData");
  if (!fake_hip::state().modules_load) return 1;
  *module = &g_module_tag;
  return 0;
}
FAKE_HIP hipModuleUnload(void*) { return 0; }
FAKE_HIP hipModuleGetFunction(void** function, void*, const char*) {
  if (!fake_hip::state().modules_load) return 1;
  *function = &g_module_tag;
  return 0;
}
FAKE_HIP hipModuleLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                               void**, void**) {
  record("hipModuleLaunchKernel");
  return 0;
}
