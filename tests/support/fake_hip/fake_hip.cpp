// The stand-in HIP runtime (fake_hip.hpp).
#include "support/fake_hip/fake_hip.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

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

void reset() {
  std::lock_guard lock(state().mutex);
  state().calls.clear();
  state().log.clear();
  state().launches.clear();
  state().failures.clear();
}

void fail(const std::string& call, int code, int times) {
  std::lock_guard lock(state().mutex);
  state().failures[call] = {code, times};
}

std::vector<Op> log() {
  std::lock_guard lock(state().mutex);
  return state().log;
}

std::vector<Launch> launches() {
  std::lock_guard lock(state().mutex);
  return state().launches;
}

}  // namespace fake_hip

namespace {

// Records the call and returns the failure a test injected into it (0: none, the call goes ahead).
int record(const char* name) {
  auto& s = fake_hip::state();
  std::lock_guard lock(s.mutex);
  s.calls.emplace_back(name);
  for (auto& [call, failure] : s.failures) {
    auto& [code, times] = failure;
    if (times == 0 || std::strncmp(name, call.c_str(), call.size()) != 0) continue;
    if (name[call.size()] != '\0' && name[call.size()] != '(') continue;  // "hipMalloc" is not "hipMallocAsync"
    if (times > 0) --times;
    return code;
  }
  return 0;
}

int log_op(const char* what, const void* pointer, std::size_t bytes, const void* stream,
           const void* payload = nullptr) {
  auto& s = fake_hip::state();
  std::lock_guard lock(s.mutex);
  fake_hip::Op op{what, reinterpret_cast<std::uint64_t>(pointer), bytes, {}, stream};
  if (payload)
    op.payload.assign(static_cast<const unsigned char*>(payload), static_cast<const unsigned char*>(payload) + bytes);
  s.log.push_back(std::move(op));
  return static_cast<int>(s.log.size()) - 1;
}

// A loaded module: its image's text, where it is generated HIP C, gives each entry's parameter sizes.
struct Function {
  std::string name;
  std::vector<std::size_t> param_sizes;
};
struct Module {
  bool has_signatures = false;
  std::vector<std::unique_ptr<Function>> functions;
};

// `extern "C" __global__ void [__launch_bounds__(256)] name(float* p0, ..., long long __n__)`: a pointer or a
// 64-bit integer is 8 bytes, any other parameter 4 (Tack passes only the former).
void parse_entries(const std::string& text, Module& m) {
  std::size_t at = 0;
  while ((at = text.find("__global__ void", at)) != std::string::npos) {
    at += 15;
    if (text.compare(text.find_first_not_of(' ', at), 18, "__launch_bounds__(") == 0) at = text.find(')', at) + 1;
    const std::size_t open = text.find('(', at), close = text.find(')', open);
    if (open == std::string::npos || close == std::string::npos) break;
    auto f = std::make_unique<Function>();
    const std::size_t name_begin = text.find_first_not_of(' ', at);
    f->name = text.substr(name_begin, open - name_begin);
    std::size_t p = open + 1;
    while (p < close) {
      std::size_t end = std::min(text.find(',', p), close);
      const std::string decl = text.substr(p, end - p);
      if (decl.find_first_not_of(' ') != std::string::npos)
        f->param_sizes.push_back(
            decl.find('*') != std::string::npos || decl.find("long long") != std::string::npos ? 8 : 4);
      p = end + 1;
    }
    m.functions.push_back(std::move(f));
    m.has_signatures = true;
    at = close;
  }
}

int g_current = 0;
int g_stream_tag = 0, g_event_tag = 0;

}  // namespace

#define FAKE_HIP extern "C" __attribute__((visibility("default"))) int

FAKE_HIP hipInit(unsigned) { return 0; }
FAKE_HIP hipRuntimeGetVersion(int* v) {
  *v = 60443483;  // ROCm 6.4
  return 0;
}
extern "C" __attribute__((visibility("default"))) const char* hipGetErrorName(int e) {
  switch (e) {
    case 0: return "hipSuccess";
    case 1: return "hipErrorInvalidValue";
    case 2: return "hipErrorOutOfMemory";
    case 500: return "hipErrorNotFound";
    case 600: return "hipErrorNotReady";
    case 719: return "hipErrorLaunchFailure";
    default: return "hipErrorUnknown";
  }
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
FAKE_HIP hipEventRecord(void*, void* stream) {
  if (const int e = record("hipEventRecord")) return e;
  log_op("event_record", nullptr, 0, stream);
  return 0;
}
// A failure a test injects here is what a kernel that faulted reports at the next wait.
FAKE_HIP hipEventSynchronize(void*) {
  if (const int e = record("hipEventSynchronize")) return e;
  log_op("event_sync", nullptr, 0, nullptr);
  return 0;
}
FAKE_HIP hipEventQuery(void*) {
  if (const int e = record("hipEventQuery")) return e;
  std::lock_guard lock(fake_hip::state().mutex);
  return fake_hip::state().event_query;
}
FAKE_HIP hipEventDestroy(void*) { return 0; }

namespace {
int allocate(void** ptr, std::size_t bytes, const char* name, const char* op, const void* stream) {
  if (const int e = record(name)) return e;
  auto& s = fake_hip::state();
  {
    std::lock_guard lock(s.mutex);
    std::size_t used = 0;
    for (auto& [p, n] : s.live) used += n;
    if (used + bytes > s.total_memory) return 2;
    *ptr = std::calloc(1, bytes);
    s.live[*ptr] = bytes;
    s.device_of[*ptr] = g_current;
  }
  log_op(op, *ptr, bytes, stream);
  return 0;
}
int release(void* ptr, const char* name, const char* op, const void* stream) {
  record(name);
  auto& s = fake_hip::state();
  {
    std::lock_guard lock(s.mutex);
    s.live.erase(ptr);
    s.device_of.erase(ptr);
    std::free(ptr);
  }
  log_op(op, ptr, 0, stream);
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

FAKE_HIP hipMalloc(void** ptr, std::size_t bytes) { return allocate(ptr, bytes, "hipMalloc", "alloc", nullptr); }
// Only the device ordinal is asked (attribute 9); other memory is hipErrorInvalidValue (1).
FAKE_HIP hipPointerGetAttribute(void* data, int attribute, void* ptr) {
  if (const int e = record("hipPointerGetAttribute")) return e;
  std::lock_guard lock(fake_hip::state().mutex);
  void* base = nullptr;
  std::size_t size = 0;
  if (attribute != 9 || !containing(ptr, &base, &size)) return 1;
  *static_cast<int*>(data) = fake_hip::state().device_of[base];
  return 0;
}
FAKE_HIP hipMemGetAddressRange(void** base, std::size_t* size, void* ptr) {
  if (const int e = record("hipMemGetAddressRange")) return e;
  std::lock_guard lock(fake_hip::state().mutex);
  return containing(ptr, base, size) ? 0 : 1;
}
// Pinned memory is one host allocation, mapped at the same address; managed memory an ordinary one.
FAKE_HIP hipHostMalloc(void** ptr, std::size_t bytes, unsigned flags) {
  if (flags != 0x2) return 1;  // Tack asks for mapped memory only
  return allocate(ptr, bytes, "hipHostMalloc", "alloc_host", nullptr);
}
FAKE_HIP hipHostGetDevicePointer(void** device, void* host, unsigned) {
  if (const int e = record("hipHostGetDevicePointer")) return e;
  std::lock_guard lock(fake_hip::state().mutex);
  if (!fake_hip::state().live.count(host)) return 1;
  *device = host;
  return 0;
}
FAKE_HIP hipHostFree(void* ptr) { return release(ptr, "hipHostFree", "free_host", nullptr); }
FAKE_HIP hipMallocManaged(void** ptr, std::size_t bytes, unsigned flags) {
  if (flags != 0x1) return 1;  // hipMemAttachGlobal
  return allocate(ptr, bytes, "hipMallocManaged", "alloc_managed", nullptr);
}
FAKE_HIP hipFree(void* ptr) { return release(ptr, "hipFree", "free", nullptr); }
FAKE_HIP hipMallocAsync(void** ptr, std::size_t bytes, void* stream) {
  return allocate(ptr, bytes, "hipMallocAsync", "alloc_async", stream);
}
FAKE_HIP hipFreeAsync(void* ptr, void* stream) { return release(ptr, "hipFreeAsync", "free_async", stream); }
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
FAKE_HIP hipMemcpyHtoDAsync(void* dst, void* src, std::size_t bytes, void* stream) {
  if (const int e = record("hipMemcpyHtoDAsync")) return e;
  log_op("htod", dst, bytes, stream, src);
  std::memcpy(dst, src, bytes);
  return 0;
}
FAKE_HIP hipMemcpyDtoHAsync(void* dst, void* src, std::size_t bytes, void* stream) {
  if (const int e = record("hipMemcpyDtoHAsync")) return e;
  log_op("dtoh", src, bytes, stream);
  std::memcpy(dst, src, bytes);
  return 0;
}
FAKE_HIP hipMemcpyDtoDAsync(void* dst, void* src, std::size_t bytes, void* stream) {
  if (const int e = record("hipMemcpyDtoDAsync")) return e;
  log_op("dtod", dst, bytes, stream);
  std::memmove(dst, src, bytes);
  return 0;
}
FAKE_HIP hipMemsetD8Async(void* dst, unsigned char v, std::size_t n, void* stream) {
  record("hipMemsetD8Async");
  log_op("memset", dst, n, stream);
  std::memset(dst, v, n);
  return 0;
}
FAKE_HIP hipMemsetD16Async(void* dst, unsigned short v, std::size_t n, void* stream) {
  record("hipMemsetD16Async");
  log_op("memset", dst, 2 * n, stream);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(dst) + 2 * i, &v, 2);
  return 0;
}
FAKE_HIP hipMemsetD32Async(void* dst, int v, std::size_t n, void* stream) {
  record("hipMemsetD32Async");
  log_op("memset", dst, 4 * n, stream);
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
  if (const int e = record("hipMalloc3DArray")) return e;
  if (channel[0] != 32 || channel[4] != 2) return 1;  // Tack asks for one f32 channel only
  std::lock_guard lock(fake_hip::state().mutex);
  auto texels = std::vector<float>(extent.width * extent.height * extent.depth);
  *array = texels.data();  // a unique address while the array lives
  fake_hip::state().arrays.emplace(*array, std::move(texels));
  return 0;
}
FAKE_HIP hipFreeArray(void* array) {
  if (const int e = record("hipFreeArray")) return e;
  std::lock_guard lock(fake_hip::state().mutex);
  return fake_hip::state().arrays.erase(array) ? 0 : 1;
}
FAKE_HIP hipMemcpy3DAsync(const FakeMemcpy3D* copy, void*) {
  if (const int e = record("hipMemcpy3DAsync")) return e;
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
  if (const int e = record("hipCreateTextureObject")) return e;
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
  if (const int e = record("hipDestroyTextureObject")) return e;
  std::lock_guard lock(fake_hip::state().mutex);
  if (!fake_hip::state().textures.erase(object)) return 1;
  delete static_cast<char*>(object);
  return 0;
}
FAKE_HIP hipModuleLoadData(void** module, const void* image) {
  if (const int e = record("hipModuleLoadData")) return e;
  if (!fake_hip::state().modules_load) return 1;
  auto* m = new Module;
  parse_entries(static_cast<const char*>(image), *m);  // the images the tests store are text
  std::lock_guard lock(fake_hip::state().mutex);
  ++fake_hip::state().live_modules;
  *module = m;
  return 0;
}
FAKE_HIP hipModuleUnload(void* module) {
  delete static_cast<Module*>(module);
  std::lock_guard lock(fake_hip::state().mutex);
  --fake_hip::state().live_modules;
  return 0;
}
FAKE_HIP hipModuleGetFunction(void** function, void* module, const char* name) {
  if (!fake_hip::state().modules_load) return 1;
  auto* m = static_cast<Module*>(module);
  for (const auto& f : m->functions)
    if (f->name == name) {
      *function = f.get();
      return 0;
    }
  if (m->has_signatures) return 500;  // hipErrorNotFound
  m->functions.push_back(std::make_unique<Function>(Function{name, {}}));
  *function = m->functions.back().get();
  return 0;
}
FAKE_HIP hipModuleLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared_bytes, void* stream, void** params, void** extra) {
  if (const int e = record("hipModuleLaunchKernel")) return e;
  const auto* f = static_cast<const Function*>(function);
  if (!params && !f->param_sizes.empty()) return 1;  // Tack passes kernelParams, never `extra`
  if (extra) return 1;
  fake_hip::Launch l;
  l.name = f->name;
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.shared_bytes = shared_bytes;
  l.stream = stream;
  l.param_count = static_cast<int>(std::min<std::size_t>(f->param_sizes.size(), 32));
  for (int i = 0; i < l.param_count; ++i) {
    l.param_size[i] = f->param_sizes[static_cast<std::size_t>(i)];
    std::memcpy(l.params[i], params[i], std::min<std::size_t>(16, l.param_size[i]));
  }
  auto& s = fake_hip::state();
  std::lock_guard lock(s.mutex);  // the log's order is the launches' order, whichever thread launches
  l.log_index = static_cast<int>(s.log.size());
  s.log.push_back({"launch " + f->name, 0, 0, {}, stream});
  s.launches.push_back(l);
  return 0;
}
