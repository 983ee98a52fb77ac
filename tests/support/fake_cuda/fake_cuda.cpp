// The stand-in CUDA driver (see fake_cuda.hpp): every entry point of
// tack::drivers::cu::Api, exported with C linkage under libcuda's names and
// implemented on the host, plus the fake_cuda_* controls tests use. The
// signatures come from drivers/cuda_api.hpp itself, so a wrong declaration
// there is caught by test_cuda_api_layout (against cuda.h), not hidden here.
#include "fake_cuda.hpp"

#include "drivers/cuda_api.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

using namespace tack::drivers::cu;

namespace {

constexpr CUresult kInvalidValue = 1;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kContextIsDestroyed = 709;
constexpr CUresult kNotSupported = 801;

struct ErrorName {
  int code;
  const char* name;
  const char* text;
};
constexpr ErrorName kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

struct Function {
  std::string name;
  std::vector<std::size_t> param_sizes;
};
struct Module {
  std::string ptx;
  std::vector<std::unique_ptr<Function>> functions;
};
struct Context {
  int device = 0;
  bool primary = false;
};
struct Stream {
  CUcontext context = nullptr;
};
struct Event {
  int recorded = 0;
};
struct Array3D {
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  std::vector<unsigned char> data;
  std::size_t row_bytes() const {
    std::size_t element = desc.Format == 0x20 || desc.Format == 0x03 || desc.Format == 0x0a   ? 4
                          : desc.Format == 0x02 || desc.Format == 0x09 || desc.Format == 0x10 ? 2
                                                                                              : 1;
    return desc.Width * element * desc.NumChannels;
  }
};
struct Physical {  // a cuMemCreate allocation: a memfd, so mappings and exports share its bytes
  int fd = -1;
  std::size_t bytes = 0;
};
struct Op {
  std::string what;
  FakeCudaOp detail{};
  std::vector<unsigned char> payload;
};
struct Failure {
  int code;
  int times;
};

struct State {
  std::mutex mutex;
  std::map<int, int> attributes;
  int device_count = 1;
  int func_max_threads = 1024;
  std::map<std::string, int> counts;
  std::map<std::string, Failure> failures;
  std::map<CUdeviceptr, std::size_t> allocations;  // device pointer -> bytes (host memory)
  std::vector<Op> log;
  std::vector<FakeCudaLaunch> launches;
  std::vector<std::unique_ptr<Module>> modules;  // never freed before reset: handles stay valid
  std::set<Module*> live_modules;
  std::map<int, std::unique_ptr<Context>> primaries;
  std::map<int, int> primary_refs;
  std::vector<std::unique_ptr<Context>> user_contexts;
  std::set<Stream*> streams;
  std::set<Event*> events;
  std::set<Array3D*> arrays;
  std::set<CUtexObject> textures;
  CUtexObject next_texture = 1;
  std::map<CUmemGenericAllocationHandle, Physical> physical;
  CUmemGenericAllocationHandle next_physical = 1;
  std::map<CUdeviceptr, std::size_t> reservations;
  std::string misuse;
  std::string entry_text;  // fake_cuda_log_entry's returned string
  bool initialized = false;

  void defaults() {
    attributes = {{CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
                  {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
                  {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
                  {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
                  {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, 16384},
                  {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, 16384},
                  {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 16384},
                  {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
                  {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
                  {CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
                  {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1},
                  {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1}};
    device_count = 1;
    func_max_threads = 1024;
  }
  State() { defaults(); }
};

State& state() {
  static State* s = new State;  // never destroyed: the backend may call in during exit
  return *s;
}

// The calling thread's context stack; the top is current. Trivially destructible,
// as the driver's own is: the backends' teardown pushes a context from libtack's
// exit-time destructors, which run after a thread_local std::vector is freed
// (that use-after-free corrupted the heap at exit, now and then).
struct ContextStack {
  static constexpr int kCapacity = 64;
  CUcontext entries[kCapacity];
  int depth;
  bool empty() const { return depth == 0; }
  CUcontext& back() { return entries[depth - 1]; }
  void push_back(CUcontext context) {
    if (depth == kCapacity) {  // a Scope that never pops: a bug in the backend
      std::fputs("fake cuda: more than 64 contexts pushed on one thread\n", stderr);
      std::abort();
    }
    entries[depth++] = context;
  }
  void pop_back() { --depth; }
};
static_assert(std::is_trivially_destructible_v<ContextStack>);
thread_local ContextStack t_contexts{};
CUcontext current() { return t_contexts.empty() ? nullptr : t_contexts.back(); }

void note_misuse(State& s, const std::string& what) {
  if (std::count(s.misuse.begin(), s.misuse.end(), '\n') < 50) s.misuse += what + "\n";
}

// Counts the call and returns an injected failure's code, else 0.
int enter(State& s, const char* call) {
  ++s.counts[call];
  auto it = s.failures.find(call);
  if (it == s.failures.end() || it->second.times == 0) return 0;
  if (it->second.times > 0) --it->second.times;
  return it->second.code;
}

// A primary context whose last retain was released is destroyed: using it is an error.
bool context_alive(State& s, const char* call) {
  auto* c = reinterpret_cast<Context*>(current());
  if (!c->primary || s.primary_refs[c->device] > 0) return true;
  note_misuse(s, std::string(call) + " in the primary context of device " + std::to_string(c->device) +
                     " after its last cuDevicePrimaryCtxRelease");
  return false;
}

// Common prologue: lock, count, injected failure, initialization and (when `needs_context`) a current context.
#define FAKE_ENTER(call, needs_context)                      \
  State& s = state();                                        \
  std::lock_guard lock(s.mutex);                             \
  if (int injected = enter(s, call)) return injected;        \
  if (!s.initialized) return kNotInitialized;                \
  if ((needs_context) && !current()) return kInvalidContext; \
  if ((needs_context) && !context_alive(s, call)) return kContextIsDestroyed;

Op& log_op(State& s, std::string what, CUdeviceptr ptr = 0, std::size_t bytes = 0, CUstream stream = nullptr) {
  Op& op = s.log.emplace_back();
  op.what = std::move(what);
  op.detail.pointer = ptr;
  op.detail.bytes = bytes;
  op.detail.stream = stream;
  op.detail.context = current();
  return op;
}

// True when [ptr, ptr + bytes) lies inside one live allocation or a mapped VMM range.
bool inside(State& s, CUdeviceptr ptr, std::size_t bytes) {
  auto it = s.allocations.upper_bound(ptr);
  if (it != s.allocations.begin()) {
    --it;
    if (ptr >= it->first && ptr + bytes <= it->first + it->second) return true;
  }
  auto r = s.reservations.upper_bound(ptr);
  if (r != s.reservations.begin()) {
    --r;
    if (ptr >= r->first && ptr + bytes <= r->first + r->second) return true;
  }
  return false;
}

bool check_stream(State& s, CUstream stream, const char* call) {
  if (!stream || s.streams.count(reinterpret_cast<Stream*>(stream))) return true;
  note_misuse(s, std::string(call) + " on a stream that is not alive");
  return false;
}

bool check_range(State& s, CUdeviceptr ptr, std::size_t bytes, const char* call) {
  if (bytes == 0 || inside(s, ptr, bytes)) return true;
  char where[32];
  std::snprintf(where, sizeof where, "%#llx", ptr);
  note_misuse(
      s, std::string(call) + ": " + std::to_string(bytes) + " bytes at " + where + " are not inside a live allocation");
  return false;
}

CUdeviceptr host_alloc(std::size_t bytes) {
  void* p = std::aligned_alloc(256, std::max<std::size_t>(256, (bytes + 255) / 256 * 256));
  return reinterpret_cast<CUdeviceptr>(p);
}

// Sizes of an .entry's parameters from its PTX signature.
bool parse_entries(const std::string& ptx, Module& m) {
  std::size_t at = 0;
  while ((at = ptx.find(".entry", at)) != std::string::npos) {
    at += 6;
    std::size_t name_begin = ptx.find_first_not_of(" \t\r\n", at);
    std::size_t name_end = ptx.find_first_of(" \t\r\n(", name_begin);
    if (name_begin == std::string::npos || name_end == std::string::npos) break;
    auto f = std::make_unique<Function>();
    f->name = ptx.substr(name_begin, name_end - name_begin);
    std::size_t open = ptx.find('(', name_end), close = ptx.find(')', name_end);
    if (open != std::string::npos && close != std::string::npos && open < close) {
      std::string sig = ptx.substr(open + 1, close - open - 1);
      std::size_t p = 0;
      while ((p = sig.find(".param", p)) != std::string::npos) {
        p += 6;
        std::size_t end = sig.find_first_of(",\n", p);
        std::string decl = sig.substr(p, end == std::string::npos ? std::string::npos : end - p);
        std::size_t size = 8;
        // ".u64 name", ".f32 name", ".align 8 .b8 name[16]"
        if (std::size_t lb = decl.find('['); lb != std::string::npos) {
          size = std::strtoull(decl.c_str() + lb + 1, nullptr, 10);
        } else {
          for (const char* t : {".u", ".s", ".b", ".f"}) {
            std::size_t q = decl.find(t);
            if (q != std::string::npos && std::isdigit(static_cast<unsigned char>(decl[q + 2]))) {
              size = std::strtoull(decl.c_str() + q + 2, nullptr, 10) / 8;
              break;
            }
          }
        }
        f->param_sizes.push_back(size);
      }
    }
    m.functions.push_back(std::move(f));
  }
  return !m.functions.empty();
}

// The base address, pitch and height of one side of a cuMemcpy3D.
struct Side {
  unsigned char* base;
  std::size_t pitch, height;
};
bool side(State& s, int type, const void* host, CUdeviceptr device, CUarray array, std::size_t pitch,
          std::size_t height, Side& out) {
  if (type == 1) {  // CU_MEMORYTYPE_HOST
    out = {static_cast<unsigned char*>(const_cast<void*>(host)), pitch, height};
  } else if (type == CU_MEMORYTYPE_DEVICE || type == 4) {
    out = {reinterpret_cast<unsigned char*>(device), pitch, height};
  } else if (type == CU_MEMORYTYPE_ARRAY) {
    auto* a = reinterpret_cast<Array3D*>(array);
    if (!s.arrays.count(a)) return false;
    out = {a->data.data(), a->row_bytes(), std::max<std::size_t>(1, a->desc.Height)};
  } else {
    return false;
  }
  return true;
}

// The allocation or mapped range holding ptr: {base, bytes}, or {0, 0}.
std::pair<CUdeviceptr, std::size_t> containing(State& s, CUdeviceptr ptr) {
  for (const auto* ranges : {&s.allocations, &s.reservations}) {
    auto it = ranges->upper_bound(ptr);
    if (it == ranges->begin()) continue;
    --it;
    if (ptr >= it->first && ptr < it->first + std::max<std::size_t>(it->second, 1)) return {it->first, it->second};
  }
  return {0, 0};
}

}  // namespace

namespace {

// The cuMemsetD*Async family.
template <class T>
CUresult fill(const char* call, CUdeviceptr dst, T value, std::size_t count, CUstream stream) {
  FAKE_ENTER(call, true);
  if (!check_stream(s, stream, call)) return kInvalidHandle;
  if (dst % sizeof(T)) return note_misuse(s, std::string(call) + " of a misaligned pointer"), kInvalidValue;
  if (!check_range(s, dst, count * sizeof(T), call)) return kInvalidValue;
  log_op(s, "memset", dst, count * sizeof(T), stream);
  T* p = reinterpret_cast<T*>(dst);
  std::fill(p, p + count, value);
  return CUDA_SUCCESS;
}
}  // namespace

// ---- the driver's entry points --------------------------------------------------

extern "C" {

CUresult cuInit(unsigned flags) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (int injected = enter(s, "cuInit")) return injected;
  if (const char* forced = std::getenv("FAKE_CUDA_INIT_RESULT"); forced && *forced) {
    if (int code = std::atoi(forced)) return code;
  }
  if (flags != 0) return kInvalidValue;
  s.initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (int injected = enter(s, "cuDriverGetVersion")) return injected;
  if (!version) return kInvalidValue;
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  for (const auto& e : kErrors)
    if (e.code == error) return *name = e.name, CUDA_SUCCESS;
  *name = nullptr;
  return kInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  for (const auto& e : kErrors)
    if (e.code == error) return *text = e.text, CUDA_SUCCESS;
  *text = nullptr;
  return kInvalidValue;
}

CUresult cuDeviceGetCount(int* count) {
  FAKE_ENTER("cuDeviceGetCount", false);
  *count = s.device_count;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  FAKE_ENTER("cuDeviceGet", false);
  if (ordinal < 0 || ordinal >= s.device_count) return kInvalidDevice;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  FAKE_ENTER("cuDeviceGetName", false);
  if (device < 0 || device >= s.device_count) return kInvalidDevice;
  if (length <= 0) return kInvalidValue;
  std::string n = "Fake CUDA Device " + std::to_string(device);
  std::snprintf(name, static_cast<std::size_t>(length), "%s", n.c_str());
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
  FAKE_ENTER("cuDeviceGetAttribute", false);
  if (device < 0 || device >= s.device_count) return kInvalidDevice;
  auto it = s.attributes.find(attribute);
  *value = it == s.attributes.end() ? 0 : it->second;
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice device) {
  FAKE_ENTER("cuDeviceTotalMem_v2", false);
  if (device < 0 || device >= s.device_count) return kInvalidDevice;
  *bytes = std::size_t{80} << 30;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  FAKE_ENTER("cuDevicePrimaryCtxRetain", false);
  if (device < 0 || device >= s.device_count) return kInvalidDevice;
  auto& p = s.primaries[device];
  if (!p) p = std::make_unique<Context>(Context{device, true});
  ++s.primary_refs[device];
  *context = reinterpret_cast<CUcontext>(p.get());
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  FAKE_ENTER("cuDevicePrimaryCtxRelease_v2", false);
  if (device < 0 || device >= s.device_count) return kInvalidDevice;
  if (s.primary_refs[device] <= 0) {
    note_misuse(s, "cuDevicePrimaryCtxRelease_v2 without a retain");
    return kInvalidContext;
  }
  --s.primary_refs[device];
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* context) {
  FAKE_ENTER("cuCtxGetCurrent", false);
  *context = current();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  FAKE_ENTER("cuCtxSetCurrent", false);
  if (t_contexts.empty()) {
    if (context) t_contexts.push_back(context);
  } else if (context) {
    t_contexts.back() = context;
  } else {
    t_contexts.pop_back();
  }
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext context) {
  FAKE_ENTER("cuCtxPushCurrent_v2", false);
  if (!context) return kInvalidValue;
  t_contexts.push_back(context);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext* context) {
  FAKE_ENTER("cuCtxPopCurrent_v2", false);
  if (t_contexts.empty()) return kInvalidContext;
  if (context) *context = t_contexts.back();
  t_contexts.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  FAKE_ENTER("cuCtxGetDevice", true);
  *device = reinterpret_cast<Context*>(current())->device;
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned flags) {
  FAKE_ENTER("cuStreamCreate", true);
  auto* st = new Stream{current()};
  s.streams.insert(st);
  *stream = reinterpret_cast<CUstream>(st);
  log_op(s, "stream_create", 0, 0, *stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  FAKE_ENTER("cuStreamDestroy_v2", false);
  auto* st = reinterpret_cast<Stream*>(stream);
  if (!s.streams.erase(st)) {
    note_misuse(s, "cuStreamDestroy_v2 of a stream that is not alive");
    return kInvalidHandle;
  }
  delete st;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  FAKE_ENTER("cuStreamSynchronize", true);
  if (!check_stream(s, stream, "cuStreamSynchronize")) return kInvalidHandle;
  log_op(s, "stream_sync", 0, 0, stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream stream) {
  FAKE_ENTER("cuStreamQuery", true);
  if (!check_stream(s, stream, "cuStreamQuery")) return kInvalidHandle;
  return CUDA_SUCCESS;  // work runs when queued, so the stream is idle (inject 600 for busy)
}

CUresult cuEventCreate(CUevent* event, unsigned flags) {
  FAKE_ENTER("cuEventCreate", true);
  auto* e = new Event;
  s.events.insert(e);
  *event = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  FAKE_ENTER("cuEventRecord", true);
  auto* e = reinterpret_cast<Event*>(event);
  if (!s.events.count(e)) return note_misuse(s, "cuEventRecord of an event that is not alive"), kInvalidHandle;
  if (!check_stream(s, stream, "cuEventRecord")) return kInvalidHandle;
  ++e->recorded;
  log_op(s, "event_record", 0, 0, stream);
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  FAKE_ENTER("cuEventSynchronize", false);
  if (!s.events.count(reinterpret_cast<Event*>(event)))
    return note_misuse(s, "cuEventSynchronize of an event that is not alive"), kInvalidHandle;
  log_op(s, "event_sync");
  return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent event) {
  FAKE_ENTER("cuEventQuery", false);
  if (!s.events.count(reinterpret_cast<Event*>(event)))
    return note_misuse(s, "cuEventQuery of an event that is not alive"), kInvalidHandle;
  return CUDA_SUCCESS;  // work runs when queued (inject 600, CUDA_ERROR_NOT_READY, for work that never ends)
}

CUresult cuEventDestroy_v2(CUevent event) {
  FAKE_ENTER("cuEventDestroy_v2", false);
  auto* e = reinterpret_cast<Event*>(event);
  if (!s.events.erase(e)) return note_misuse(s, "cuEventDestroy_v2 of an event that is not alive"), kInvalidHandle;
  delete e;
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(std::size_t* free, std::size_t* total) {
  FAKE_ENTER("cuMemGetInfo_v2", true);
  std::size_t used = 0;
  for (const auto& [p, n] : s.allocations) used += n;
  *total = std::size_t{80} << 30;
  *free = *total - std::min(used, *total);
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
  FAKE_ENTER("cuMemAlloc_v2", true);
  if (bytes == 0) return kInvalidValue;
  *ptr = host_alloc(bytes);
  s.allocations[*ptr] = bytes;
  log_op(s, "alloc", *ptr, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  FAKE_ENTER("cuMemFree_v2", true);
  auto it = s.allocations.find(ptr);
  if (it == s.allocations.end()) return note_misuse(s, "cuMemFree_v2 of an unknown pointer"), kInvalidValue;
  log_op(s, "free", ptr, it->second);
  s.allocations.erase(it);
  std::free(reinterpret_cast<void*>(ptr));
  return CUDA_SUCCESS;
}

// Pinned memory is one host allocation mapped at the same device address; managed memory an ordinary one.
CUresult cuMemHostAlloc(void** ptr, std::size_t bytes, unsigned flags) {
  FAKE_ENTER("cuMemHostAlloc", true);
  if (bytes == 0 || flags != kMemHostAllocDeviceMap) return kInvalidValue;  // Tack asks for mapped memory only
  const CUdeviceptr p = host_alloc(bytes);
  s.allocations[p] = bytes;
  *ptr = reinterpret_cast<void*>(p);
  log_op(s, "alloc_host", p, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* device, void* host, unsigned flags) {
  FAKE_ENTER("cuMemHostGetDevicePointer_v2", true);
  if (flags != 0 || !s.allocations.count(reinterpret_cast<CUdeviceptr>(host))) return kInvalidValue;
  *device = reinterpret_cast<CUdeviceptr>(host);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void* ptr) {
  FAKE_ENTER("cuMemFreeHost", false);
  auto it = s.allocations.find(reinterpret_cast<CUdeviceptr>(ptr));
  if (it == s.allocations.end()) return note_misuse(s, "cuMemFreeHost of an unknown pointer"), kInvalidValue;
  log_op(s, "free_host", it->first, it->second);
  s.allocations.erase(it);
  std::free(ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr* ptr, std::size_t bytes, unsigned flags) {
  FAKE_ENTER("cuMemAllocManaged", true);
  if (bytes == 0 || flags != CU_MEM_ATTACH_GLOBAL) return kInvalidValue;
  *ptr = host_alloc(bytes);
  s.allocations[*ptr] = bytes;
  log_op(s, "alloc_managed", *ptr, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocAsync(CUdeviceptr* ptr, std::size_t bytes, CUstream stream) {
  FAKE_ENTER("cuMemAllocAsync", true);
  if (!s.attributes[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED]) return kNotSupported;
  if (!check_stream(s, stream, "cuMemAllocAsync")) return kInvalidHandle;
  if (bytes == 0) return kInvalidValue;
  *ptr = host_alloc(bytes);
  s.allocations[*ptr] = bytes;
  log_op(s, "alloc_async", *ptr, bytes, stream);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream stream) {
  FAKE_ENTER("cuMemFreeAsync", true);
  if (!s.attributes[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED]) return kNotSupported;
  if (!check_stream(s, stream, "cuMemFreeAsync")) return kInvalidHandle;
  auto it = s.allocations.find(ptr);
  if (it == s.allocations.end()) return note_misuse(s, "cuMemFreeAsync of an unknown pointer"), kInvalidValue;
  log_op(s, "free_async", ptr, it->second, stream);
  s.allocations.erase(it);
  std::free(reinterpret_cast<void*>(ptr));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice device) {
  FAKE_ENTER("cuDeviceGetDefaultMemPool", false);
  if (!s.attributes[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED]) return kNotSupported;
  static char pools[16];
  if (device < 0 || device >= s.device_count || device >= 16) return kInvalidDevice;
  *pool = reinterpret_cast<CUmemoryPool>(&pools[device]);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value) {
  FAKE_ENTER("cuMemPoolSetAttribute", false);
  if (!pool || !value) return kInvalidValue;
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream) {
  FAKE_ENTER("cuMemcpyHtoDAsync_v2", true);
  if (!check_stream(s, stream, "cuMemcpyHtoDAsync_v2")) return kInvalidHandle;
  if (!check_range(s, dst, bytes, "cuMemcpyHtoDAsync_v2")) return kInvalidValue;
  Op& op = log_op(s, "htod", dst, bytes, stream);
  op.payload.assign(static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + bytes);
  if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
  FAKE_ENTER("cuMemcpyDtoH_v2", true);
  if (!check_range(s, src, bytes, "cuMemcpyDtoH_v2")) return kInvalidValue;
  log_op(s, "dtoh", src, bytes);
  if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  FAKE_ENTER("cuMemcpyDtoDAsync_v2", true);
  if (!check_stream(s, stream, "cuMemcpyDtoDAsync_v2")) return kInvalidHandle;
  if (!check_range(s, dst, bytes, "cuMemcpyDtoDAsync_v2 (destination)") ||
      !check_range(s, src, bytes, "cuMemcpyDtoDAsync_v2 (source)"))
    return kInvalidValue;
  log_op(s, "dtod", dst, bytes, stream);
  if (bytes) std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t count, CUstream stream) {
  return fill("cuMemsetD8Async", dst, value, count, stream);
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, std::size_t count, CUstream stream) {
  return fill("cuMemsetD16Async", dst, value, count, stream);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, std::size_t count, CUstream stream) {
  return fill("cuMemsetD32Async", dst, value, count, stream);
}

CUresult cuMemsetD2D32Async(CUdeviceptr dst, std::size_t pitch, unsigned value, std::size_t width, std::size_t height,
                            CUstream stream) {
  FAKE_ENTER("cuMemsetD2D32Async", true);
  if (!check_stream(s, stream, "cuMemsetD2D32Async")) return kInvalidHandle;
  if (height == 0 || width == 0) return CUDA_SUCCESS;
  if (pitch < width * 4) return kInvalidValue;
  if (!check_range(s, dst, pitch * (height - 1) + width * 4, "cuMemsetD2D32Async")) return kInvalidValue;
  log_op(s, "memset", dst, pitch * (height - 1) + width * 4, stream);
  for (std::size_t r = 0; r < height; ++r) {
    unsigned* row = reinterpret_cast<unsigned*>(dst + r * pitch);
    std::fill(row, row + width, value);
  }
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned count, int* options, void** values) {
  FAKE_ENTER("cuModuleLoadDataEx", true);
  auto m = std::make_unique<Module>();
  m->ptx = static_cast<const char*>(image);
  const bool ok = parse_entries(m->ptx, *m);
  // Honour the error-log buffer options as the driver does.
  char* log = nullptr;
  std::size_t log_size = 0;
  for (unsigned i = 0; i < count; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) log = static_cast<char*>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      log_size = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(values[i]));
  }
  if (log && log_size) std::snprintf(log, log_size, "%s", ok ? "" : "fake ptxas: no .entry in the image");
  if (!ok) return kInvalidPtx;
  log_op(s, "module_load");
  s.live_modules.insert(m.get());
  *module = reinterpret_cast<CUmodule>(m.get());
  s.modules.push_back(std::move(m));
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  FAKE_ENTER("cuModuleUnload", false);
  if (!s.live_modules.erase(reinterpret_cast<Module*>(module)))
    return note_misuse(s, "cuModuleUnload of a module that is not loaded"), kInvalidHandle;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  FAKE_ENTER("cuModuleGetFunction", true);
  auto* m = reinterpret_cast<Module*>(module);
  if (!s.live_modules.count(m)) return note_misuse(s, "cuModuleGetFunction on an unloaded module"), kInvalidHandle;
  for (const auto& f : m->functions)
    if (f->name == name) return *function = reinterpret_cast<CUfunction>(f.get()), CUDA_SUCCESS;
  return kNotFound;
}

CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction function) {
  FAKE_ENTER("cuFuncGetAttribute", true);
  if (!function) return kInvalidHandle;
  *value = attribute == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? s.func_max_threads : 0;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared_bytes, CUstream stream, void** params, void** extra) {
  FAKE_ENTER("cuLaunchKernel", true);
  if (!check_stream(s, stream, "cuLaunchKernel")) return kInvalidHandle;
  auto* fn = reinterpret_cast<Function*>(f);
  if (!fn) return kInvalidHandle;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return kInvalidValue;
  if (gx > static_cast<unsigned>(s.attributes[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X]) ||
      bx * by * bz > static_cast<unsigned>(s.attributes[CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK]))
    return kInvalidValue;
  if (!params && !fn->param_sizes.empty()) return kInvalidValue;
  FakeCudaLaunch l{};
  std::snprintf(l.name, sizeof l.name, "%s", fn->name.c_str());
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.shared_bytes = shared_bytes;
  l.stream = stream;
  l.context = current();
  l.param_count = static_cast<int>(fn->param_sizes.size());
  l.raw_params = params;
  for (int i = 0; i < l.param_count && i < 32; ++i) {
    l.param_size[i] = fn->param_sizes[i];
    std::memcpy(l.params[i], params[i], std::min<std::size_t>(16, fn->param_sizes[i]));
  }
  l.log_index = static_cast<int>(s.log.size());
  log_op(s, "launch " + fn->name, 0, 0, stream);
  s.launches.push_back(l);
  return CUDA_SUCCESS;
}

CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* d) {
  FAKE_ENTER("cuArray3DCreate_v2", true);
  if (!d || d->Width == 0 || d->NumChannels == 0) return kInvalidValue;
  auto* a = new Array3D;
  a->desc = *d;
  a->data.resize(a->row_bytes() * std::max<std::size_t>(1, d->Height) * std::max<std::size_t>(1, d->Depth));
  s.arrays.insert(a);
  *array = reinterpret_cast<CUarray>(a);
  return CUDA_SUCCESS;
}

CUresult cuArrayDestroy(CUarray array) {
  FAKE_ENTER("cuArrayDestroy", false);
  auto* a = reinterpret_cast<Array3D*>(array);
  if (!s.arrays.erase(a)) return note_misuse(s, "cuArrayDestroy of an array that is not alive"), kInvalidHandle;
  delete a;
  return CUDA_SUCCESS;
}

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* c, CUstream stream) {
  FAKE_ENTER("cuMemcpy3DAsync_v2", true);
  if (!check_stream(s, stream, "cuMemcpy3DAsync_v2")) return kInvalidHandle;
  Side src{}, dst{};
  if (!side(s, c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch, c->srcHeight, src) ||
      !side(s, c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch, c->dstHeight, dst))
    return kInvalidValue;
  if (src.pitch == 0) src.pitch = c->WidthInBytes;
  if (dst.pitch == 0) dst.pitch = c->WidthInBytes;
  if (src.height == 0) src.height = c->Height;
  if (dst.height == 0) dst.height = c->Height;
  const std::size_t depth = std::max<std::size_t>(1, c->Depth), height = std::max<std::size_t>(1, c->Height);
  for (std::size_t z = 0; z < depth; ++z)
    for (std::size_t y = 0; y < height; ++y) {
      const unsigned char* from =
          src.base + c->srcXInBytes + (c->srcY + y) * src.pitch + (c->srcZ + z) * src.pitch * src.height;
      unsigned char* to =
          dst.base + c->dstXInBytes + (c->dstY + y) * dst.pitch + (c->dstZ + z) * dst.pitch * dst.height;
      std::memcpy(to, from, c->WidthInBytes);
    }
  // The pointer logged is the source's device address (0 for another kind of source).
  log_op(s, "memcpy3d", c->srcMemoryType == CU_MEMORYTYPE_DEVICE ? c->srcDevice : 0, c->WidthInBytes * height * depth,
         stream);
  return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject* object, const CUDA_RESOURCE_DESC* resource, const CUDA_TEXTURE_DESC* texture,
                           const void* view) {
  FAKE_ENTER("cuTexObjectCreate", true);
  if (!resource || !texture) return kInvalidValue;
  if (resource->resType == CU_RESOURCE_TYPE_ARRAY &&
      !s.arrays.count(reinterpret_cast<Array3D*>(resource->res.array.hArray)))
    return note_misuse(s, "cuTexObjectCreate over an array that is not alive"), kInvalidHandle;
  *object = s.next_texture++;
  s.textures.insert(*object);
  return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject object) {
  FAKE_ENTER("cuTexObjectDestroy", false);
  if (!s.textures.erase(object))
    return note_misuse(s, "cuTexObjectDestroy of a texture that is not alive"), kInvalidHandle;
  return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationGranularity(std::size_t* granularity, const CUmemAllocationProp* prop, int option) {
  FAKE_ENTER("cuMemGetAllocationGranularity", false);
  if (!s.attributes[CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED]) return kNotSupported;
  *granularity = std::size_t{2} << 20;
  return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, std::size_t bytes, const CUmemAllocationProp* prop,
                     unsigned long long flags) {
  FAKE_ENTER("cuMemCreate", true);
  if (!s.attributes[CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED]) return kNotSupported;
  if (bytes == 0 || bytes % (std::size_t{2} << 20)) return kInvalidValue;
  int fd = memfd_create("fake_cuda", 0);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *handle = s.next_physical++;
  s.physical[*handle] = {fd, bytes};
  return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  FAKE_ENTER("cuMemRelease", false);
  auto it = s.physical.find(handle);
  if (it == s.physical.end()) return note_misuse(s, "cuMemRelease of an unknown handle"), kInvalidValue;
  close(it->second.fd);  // mappings keep the memory until unmapped, as the driver's do
  s.physical.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr* ptr, std::size_t bytes, std::size_t alignment, CUdeviceptr addr,
                             unsigned long long flags) {
  FAKE_ENTER("cuMemAddressReserve", false);
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  s.reservations[*ptr] = bytes;
  return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, std::size_t bytes) {
  FAKE_ENTER("cuMemAddressFree", false);
  auto it = s.reservations.find(ptr);
  if (it == s.reservations.end() || it->second != bytes)
    return note_misuse(s, "cuMemAddressFree of a range that was not reserved"), kInvalidValue;
  munmap(reinterpret_cast<void*>(ptr), bytes);
  s.reservations.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr ptr, std::size_t bytes, std::size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
  FAKE_ENTER("cuMemMap", false);
  auto it = s.physical.find(handle);
  if (it == s.physical.end() || offset + bytes > it->second.bytes) return kInvalidValue;
  void* p = mmap(reinterpret_cast<void*>(ptr), bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, it->second.fd,
                 static_cast<off_t>(offset));
  return p == MAP_FAILED ? kInvalidValue : CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr ptr, std::size_t bytes) {
  FAKE_ENTER("cuMemUnmap", false);
  // Back to a reserved, inaccessible range.
  void* p = mmap(reinterpret_cast<void*>(ptr), bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? kInvalidValue : CUDA_SUCCESS;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, std::size_t bytes, const CUmemAccessDesc* desc, std::size_t count) {
  FAKE_ENTER("cuMemSetAccess", false);
  if (!desc || count == 0) return kInvalidValue;
  int prot = desc[0].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
             : desc[0].flags == 1                                ? PROT_READ
                                                                 : PROT_NONE;
  return mprotect(reinterpret_cast<void*>(ptr), bytes, prot) == 0 ? CUDA_SUCCESS : kInvalidValue;
}

CUresult cuMemExportToShareableHandle(void* handle, CUmemGenericAllocationHandle allocation, int type,
                                      unsigned long long flags) {
  FAKE_ENTER("cuMemExportToShareableHandle", false);
  auto it = s.physical.find(allocation);
  if (it == s.physical.end() || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return kInvalidValue;
  *static_cast<int*>(handle) = dup(it->second.fd);
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, std::size_t* bytes, CUdeviceptr ptr) {
  FAKE_ENTER("cuMemGetAddressRange_v2", true);
  auto [b, n] = containing(s, ptr);
  if (!b) return kNotFound;
  if (base) *base = b;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr ptr) {
  FAKE_ENTER("cuPointerGetAttribute", false);
  if (attribute != CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) return kInvalidValue;
  if (!containing(s, ptr).first) return kInvalidValue;  // host memory, or nothing
  *static_cast<int*>(data) = 0;
  return CUDA_SUCCESS;
}

// ---- controls -------------------------------------------------------------------

void fake_cuda_reset() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.defaults();
  s.counts.clear();
  s.failures.clear();
  s.log.clear();
  s.launches.clear();
  s.misuse.clear();
  // Allocations and handles the backend may still hold (buffers, streams,
  // modules, contexts, events) stay valid: a device made before the reset,
  // shared by the tests of one process, keeps working.
}

void fake_cuda_set_attribute(int attribute, int value) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.attributes[attribute] = value;
}

void fake_cuda_set_device_count(int count) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.device_count = count;
}

void fake_cuda_set_function_max_threads(int threads) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.func_max_threads = threads;
}

void fake_cuda_fail(const char* call, int code, int times) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.failures[call] = {code, times};
}

void* fake_cuda_make_current_context(int device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto& c = s.user_contexts.emplace_back(std::make_unique<Context>(Context{device, false}));
  auto handle = reinterpret_cast<CUcontext>(c.get());
  if (t_contexts.empty())
    t_contexts.push_back(handle);
  else
    t_contexts.back() = handle;
  return handle;
}

void* fake_cuda_current_context() { return current(); }

void* fake_cuda_primary_context(int device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto& p = s.primaries[device];
  if (!p) p = std::make_unique<Context>(Context{device, true});
  return p.get();
}

int fake_cuda_primary_refcount(int device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.primary_refs[device];
}

int fake_cuda_count(const char* call) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.counts.find(call);
  return it == s.counts.end() ? 0 : it->second;
}

std::size_t fake_cuda_live_bytes() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::size_t n = 0;
  for (const auto& [p, b] : s.allocations) n += b;
  return n;
}

int fake_cuda_live_allocations() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.allocations.size());
}

int fake_cuda_log_size() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.log.size());
}

const char* fake_cuda_log_entry(int index) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (index < 0 || index >= static_cast<int>(s.log.size())) return nullptr;
  s.entry_text = s.log[index].what;
  return s.entry_text.c_str();
}

int fake_cuda_log_op(int index, FakeCudaOp* out) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (index < 0 || index >= static_cast<int>(s.log.size())) return 0;
  *out = s.log[index].detail;
  out->payload = s.log[index].payload.empty() ? nullptr : s.log[index].payload.data();
  return 1;
}

int fake_cuda_launch_count() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.launches.size());
}

int fake_cuda_launch(int index, FakeCudaLaunch* out) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (index < 0 || index >= static_cast<int>(s.launches.size())) return 0;
  *out = s.launches[index];
  return 1;
}

int fake_cuda_module_count() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.modules.size());
}

const char* fake_cuda_module_ptx(int index) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (index < 0 || index >= static_cast<int>(s.modules.size())) return nullptr;
  return s.modules[index]->ptx.c_str();
}

int fake_cuda_live_textures() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.textures.size());
}

int fake_cuda_live_arrays() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.arrays.size());
}

int fake_cuda_live_streams() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.streams.size());
}

int fake_cuda_live_events() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.events.size());
}

int fake_cuda_live_modules() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<int>(s.live_modules.size());
}

const char* fake_cuda_misuse() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.misuse.c_str();
}

}  // extern "C"
