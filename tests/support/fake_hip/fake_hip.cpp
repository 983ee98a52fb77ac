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
    case 51: *value = fake_hip::state().max_texture3d; return 0;
    case 56: *value = 1024; return 0;
    case 63: *value = 104; return 0;
    case 88: *value = fake_hip::state().memory_pools; return 0;
    case 10014: *value = fake_hip::state().image_support; return 0;
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
  return 0;
}
int release(void* ptr, const char* name) {
  record(name);
  auto& s = fake_hip::state();
  std::lock_guard lock(s.mutex);
  s.live.erase(ptr);
  std::free(ptr);
  return 0;
}
}  // namespace

FAKE_HIP hipMalloc(void** ptr, std::size_t bytes) { return allocate(ptr, bytes, "hipMalloc"); }
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
// Textures: an array is host memory of its texels; a texture object names its array.
struct FakeExtent {
  std::size_t width, height, depth;
};
struct FakeMemcpy3D {  // hipMemcpy3DParms
  void* srcArray;
  std::size_t srcPos[3];
  void* srcPtr;
  std::size_t srcPitch, srcXsize, srcYsize;
  void* dstArray;
  std::size_t dstPos[3];
  void* dstPtr;
  std::size_t dstPitch, dstXsize, dstYsize;
  FakeExtent extent;
  int kind;
};
FAKE_HIP hipMalloc3DArray(void** array, const int* channel, FakeExtent extent, unsigned) {
  record("hipMalloc3DArray");
  if (channel[0] != 32 || channel[4] != 2) return 1;  // Tack asks for one f32 channel only
  std::lock_guard lock(fake_hip::state().mutex);
  auto texels = std::vector<float>(extent.width * extent.height * extent.depth);
  *array = texels.data();  // a unique address while the array lives
  fake_hip::state().arrays.emplace(*array, std::move(texels));
  return 0;
}
FAKE_HIP hipFreeArray(void* array) {
  record("hipFreeArray");
  std::lock_guard lock(fake_hip::state().mutex);
  return fake_hip::state().arrays.erase(array) ? 0 : 1;
}
FAKE_HIP hipMemcpy3DAsync(const FakeMemcpy3D* copy, void*) {
  record("hipMemcpy3DAsync");
  std::lock_guard lock(fake_hip::state().mutex);
  auto it = fake_hip::state().arrays.find(copy->dstArray);
  const std::size_t n = copy->extent.width * copy->extent.height * copy->extent.depth;
  if (it == fake_hip::state().arrays.end() || copy->kind != 3 || it->second.size() != n ||
      copy->srcPitch != copy->extent.width * sizeof(float) || copy->srcYsize != copy->extent.height)
    return 1;
  std::memcpy(it->second.data(), copy->srcPtr, n * sizeof(float));
  return 0;
}
FAKE_HIP hipCreateTextureObject(void** object, const void* resource, const int* texture, const void*) {
  record("hipCreateTextureObject");
  // resType 0 (array), the array at offset 8; clamp x3, linear, element type, normalized coordinates.
  void* array = nullptr;
  std::memcpy(&array, static_cast<const char*>(resource) + 8, sizeof array);
  const bool wanted = *static_cast<const int*>(resource) == 0 && texture[0] == 1 && texture[1] == 1 &&
                      texture[2] == 1 && texture[3] == 1 && texture[4] == 0 && texture[10] == 1;
  std::lock_guard lock(fake_hip::state().mutex);
  if (!wanted || !fake_hip::state().arrays.count(array)) return 1;
  *object = new char;  // a unique handle
  fake_hip::state().textures.emplace(*object, array);
  return 0;
}
FAKE_HIP hipDestroyTextureObject(void* object) {
  record("hipDestroyTextureObject");
  std::lock_guard lock(fake_hip::state().mutex);
  if (!fake_hip::state().textures.erase(object)) return 1;
  delete static_cast<char*>(object);
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
