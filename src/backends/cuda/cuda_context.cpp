// Opening the CUDA context (adopted or primary), its stream, and stream-ordered memory.
#include "backends/cuda/cuda_context.hpp"

#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_memory.hpp"
#include "runtime/gpu/device_ordinal.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <cstdlib>
#include <limits>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace cu = cuda::driver;
namespace {

int attribute(const cu::Api& api, int which, cu::CUdevice device, const char* what) {
  int value = 0;
  cu::check(api.cuDeviceGetAttribute(&value, which, device), what);
  return value;
}

int chosen_ordinal(const DeviceOptions& options, int count) {
  if (const std::optional<std::int64_t> option = device_option(options, "cuda"))
    return checked_ordinal("cuda", *option, "option 'device'", "the driver", count);
  const std::optional<std::string> env = support::env_text("TACK_CUDA_DEVICE");
  if (!env) return checked_ordinal("cuda", 0, "the default", "the driver", count);
  char* end = nullptr;
  const std::int64_t ordinal = std::strtoll(env->c_str(), &end, 10);
  if (*end != '\0') throw InvalidArgument("cuda: TACK_CUDA_DEVICE='" + *env + "' is not a device ordinal");
  return checked_ordinal("cuda", ordinal, "TACK_CUDA_DEVICE", "the driver", count);
}

DeviceInfo query(const cu::Api& api, int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  cu::check(api.cuDeviceGet(&d.device, ordinal), "cuDeviceGet");
  char name[256] = {};
  cu::check(api.cuDeviceGetName(name, sizeof name - 1, d.device), "cuDeviceGetName");
  d.name = name;
  d.compute_major = attribute(api, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device, "cuDeviceGetAttribute");
  d.compute_minor = attribute(api, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device, "cuDeviceGetAttribute");
  d.max_grid_dim_x = attribute(api, cu::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, d.device, "cuDeviceGetAttribute");
  d.multiprocessors = attribute(api, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d.device, "cuDeviceGetAttribute");
  d.max_threads_per_block =
      attribute(api, cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d.device, "cuDeviceGetAttribute");
  d.max_shared_per_block =
      attribute(api, cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, d.device, "cuDeviceGetAttribute");
  d.memory_pools =
      attribute(api, cu::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, d.device, "cuDeviceGetAttribute") != 0;
  d.virtual_memory = attribute(api, cu::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d.device,
                               "cuDeviceGetAttribute") != 0;
  d.posix_fd_handles = attribute(api, cu::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, d.device,
                                 "cuDeviceGetAttribute") != 0;
  d.max_texture3d = {attribute(api, cu::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, d.device, "cuDeviceGetAttribute"),
                     attribute(api, cu::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, d.device, "cuDeviceGetAttribute"),
                     attribute(api, cu::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, d.device, "cuDeviceGetAttribute")};
  cu::check(api.cuDeviceTotalMem_v2(&d.total_memory, d.device), "cuDeviceTotalMem");
  cu::check(api.cuDriverGetVersion(&d.driver_version), "cuDriverGetVersion");
  return d;
}

}  // namespace

std::shared_ptr<Context> Context::open(const DeviceOptions& options) {
  const cu::Api& api = cu::api();
  int count = 0;
  cu::check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw BackendUnavailable("cuda: the driver reports no device");
  DeviceInfo info = query(api, chosen_ordinal(options, count));

  // The primary context is retained even when another is current, so it can be compared: an application's
  // current context is adopted only when it is not the primary one (which Tack then holds a reference on).
  cu::CUcontext primary = nullptr;
  cu::check(api.cuDevicePrimaryCtxRetain(&primary, info.device), "cuDevicePrimaryCtxRetain");
  cu::CUcontext current = nullptr;
  cu::CUdevice current_device = -1;
  if (api.cuCtxGetCurrent(&current) != cu::CUDA_SUCCESS ||
      (current && api.cuCtxGetDevice(&current_device) != cu::CUDA_SUCCESS))
    current = nullptr;
  std::shared_ptr<Context> context;
  if (current && current != primary && current_device == info.device) {
    api.cuDevicePrimaryCtxRelease_v2(info.device);
    context.reset(new Context(std::move(info), current, false));
  } else {
    context.reset(new Context(std::move(info), primary, true));  // from here its destructor releases the retain
  }
  context->configure_pool();
  return context;
}

Context::Context(DeviceInfo info, cu::CUcontext context, bool owned)
    : info_(std::move(info)), context_(context), owned_(owned) {}

void Context::configure_pool() {
  if (!info_.memory_pools) return;
  // The default pool keeps freed memory for reuse instead of returning it to the device at each synchronize.
  const cu::Api& api = cu::api();
  cu::CUmemoryPool pool = nullptr;
  Scope scope(*this);
  cu::check(api.cuDeviceGetDefaultMemPool(&pool, info_.device), "cuDeviceGetDefaultMemPool");
  std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
  cu::check(api.cuMemPoolSetAttribute(pool, cu::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
            "cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)");
}

Context::~Context() {
  // Errors are ignored: at process exit the driver may already be shut down (CUDA_ERROR_DEINITIALIZED).
  const cu::Api& api = cu::api();
  try {
    Scope scope(*this);
    if (cu::CUstream stream = stream_.load()) {
      if (wait_timeout_s() > 0) {
        synchronize();  // bounded; past the deadline the stream and its memory are abandoned (the catch below)
      } else {
        api.cuStreamSynchronize(stream);
        free_dropped_if_idle();
      }
      api.cuStreamDestroy_v2(stream);
    }
  } catch (const Error&) {
    // The context could not be made current: its stream and memory went with the driver.
  }
  if (owned_) api.cuDevicePrimaryCtxRelease_v2(info_.device);
}

cu::CUstream Context::stream() {
  std::call_once(stream_once_, [&] {
    Scope scope(*this);
    cu::CUstream stream = nullptr;
    cu::check(cu::api().cuStreamCreate(&stream, cu::CU_STREAM_DEFAULT), "cuStreamCreate");
    stream_.store(stream);
  });
  return stream_.load();
}

Context::Scope::Scope(const Context& c) {
  const cu::Api& api = cu::api();
  cu::CUcontext current = nullptr;
  if (api.cuCtxGetCurrent(&current) == cu::CUDA_SUCCESS && current == c.context_) return;
  cu::check(api.cuCtxPushCurrent_v2(c.context_), "cuCtxPushCurrent");
  pushed_ = true;
}

Context::Scope::~Scope() {
  if (!pushed_) return;
  cu::CUcontext popped = nullptr;
  cu::api().cuCtxPopCurrent_v2(&popped);
}

cu::CUdeviceptr Context::allocate(std::size_t bytes) {
  const cu::Api& api = cu::api();
  Scope scope(*this);
  cu::CUdeviceptr ptr = 0;
  const std::size_t request = bytes ? bytes : 1;  // a distinct address even for an empty array
  cu::CUresult r = cu::CUDA_SUCCESS;
  if (info_.memory_pools) {
    r = api.cuMemAllocAsync(&ptr, request, stream());
  } else {
    free_dropped_if_idle();
    r = api.cuMemAlloc_v2(&ptr, request);
  }
  if (r == cu::CUDA_ERROR_OUT_OF_MEMORY)
    throw BackendError("cuda: out of device memory allocating " + std::to_string(bytes) + " bytes on " + info_.name +
                       " (" + (info_.memory_pools ? "cuMemAllocAsync" : "cuMemAlloc") + ")");
  cu::check(r, info_.memory_pools ? "cuMemAllocAsync" : "cuMemAlloc");
  return ptr;
}

void Context::free(cu::CUdeviceptr ptr) noexcept {
  if (!ptr) return;
  const cu::Api& api = cu::api();
  if (info_.memory_pools) {
    try {
      Scope scope(*this);
      api.cuMemFreeAsync(ptr, stream());  // after the work queued so far
    } catch (const Error&) {
      // A drop cannot report; the memory goes with the context.
    }
    return;
  }
  std::lock_guard lock(dropped_mutex_);
  dropped_.push_back(ptr);
}

void Context::free_dropped_if_idle() {
  std::vector<cu::CUdeviceptr> free_now;
  {
    std::lock_guard lock(dropped_mutex_);
    if (dropped_.empty()) return;
    // Anything queued so far may still read them; only an idle stream lets them go.
    cu::CUstream stream = stream_.load();
    if (stream && cu::api().cuStreamQuery(stream) != cu::CUDA_SUCCESS) return;
    free_now.swap(dropped_);
  }
  for (cu::CUdeviceptr p : free_now) cu::api().cuMemFree_v2(p);
}

void Context::synchronize() {
  cu::CUstream stream = stream_.load();
  if (!stream) return;  // nothing was ever queued
  Scope scope(*this);
  const cu::Api& api = cu::api();
  if (wait_timeout_s() > 0)  // then cuStreamSynchronize returns at once, with the error if any
    poll_until_done("cuda", "a wait for the queued work", last_kernel_,
                    [&] { return api.cuStreamQuery(stream) != cu::CUDA_ERROR_NOT_READY; });
  cu::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
  free_dropped_if_idle();
}

void Context::wait_event(cu::CUevent event) {
  Scope scope(*this);
  const cu::Api& api = cu::api();
  if (wait_timeout_s() > 0)
    poll_until_done("cuda", "an asynchronous wait for the queued work", last_kernel_,
                    [&] { return api.cuEventQuery(event) != cu::CUDA_ERROR_NOT_READY; });
  cu::check(api.cuEventSynchronize(event), "cuEventSynchronize");
}

}  // namespace tack::backends::cuda
