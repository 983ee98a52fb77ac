// NVRTC builds, PTX loading and the disk cache of PTX.
#include "backends/cuda/cuda_kernel.hpp"

#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/nvrtc_compile.hpp"
#include "runtime/cache/cached_binary.hpp"
#include "runtime/cache/load_or_build.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <atomic>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace cu = cuda::driver;
namespace {

// The entry's layout; the generated code's version is the library's build id, which key_text adds.
constexpr const char* kCacheFormat = "tack-cuda-ptx-1";

std::atomic<std::uint64_t> g_compiles{0};
std::atomic<std::uint64_t> g_cache_loads{0};

// Loads PTX; on failure returns the driver's result with its JIT log in *log.
cu::CUresult load_ptx(const std::string& ptx, cu::CUmodule* module, std::string* log) {
  char buffer[8192] = {};
  int options[] = {cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {buffer, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof buffer - 1))};
  const cu::CUresult r = cu::api().cuModuleLoadDataEx(module, ptx.c_str(), 2, options, values);
  if (r != cu::CUDA_SUCCESS) *log = buffer;
  return r;
}

std::string ptx_version_hint(const Context& context, cu::CUresult r) {
  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222): NVRTC is newer than the driver.
  if (r != 222) return "";
  int major = 0, minor = 0;
  try {
    auto v = tack::backends::cuda::nvrtc_version();
    major = v[0];
    minor = v[1];
  } catch (const Error&) {
  }
  const int d = context.device().driver_version;
  return "; NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " writes PTX newer than the driver (CUDA " +
         std::to_string(d / 1000) + "." + std::to_string(d % 1000 / 10) +
         ") loads: update the driver or use an NVRTC no newer than it";
}

}  // namespace

void Context::unload(cu::CUmodule module, cu::CUfunction) noexcept {
  try {
    Scope scope(*this);
    cu::api().cuModuleUnload(module);
  } catch (const Error&) {
    // The driver is gone (process exit): the module went with it.
  }
}

std::unique_ptr<Module> build_module(const std::shared_ptr<Context>& context, const BuildRequest& request) {
  Context::Scope scope(*context);
  auto finish = [&](cu::CUmodule module, const std::string& entry) {
    cu::CUfunction function = nullptr;
    cu::CUresult r = cu::api().cuModuleGetFunction(&function, module, entry.c_str());
    if (r != cu::CUDA_SUCCESS) {
      cu::api().cuModuleUnload(module);
      cu::check(r, "cuModuleGetFunction");
    }
    // Fewer than 256 threads a block when the kernel needs many registers.
    int max_threads = 0;
    r = cu::api().cuFuncGetAttribute(&max_threads, cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    if (r != cu::CUDA_SUCCESS) {
      cu::api().cuModuleUnload(module);
      cu::check(r, "cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)");
    }
    return std::make_unique<Module>(context, module, function, entry,
                                    static_cast<std::size_t>(std::max(max_threads, 0)));
  };
  // PTX depends on the code, NVRTC and its options, not on the device: the driver compiles it at load.
  auto make_key = [&] {
    const auto version = tack::backends::cuda::nvrtc_version();
    CacheKey k{kCacheFormat, "nvrtc", std::to_string(version[0]) + "." + std::to_string(version[1]),
               "",           "",      request.key};
    for (const char* o : tack::backends::cuda::nvrtc_options(request.fp_contract)) k.options += std::string(o) + " ";
    return std::optional<CacheKey>(std::move(k));
  };
  auto load = [&](std::string_view payload, std::string*) -> std::unique_ptr<Module> {
    const std::optional<CachedBinary> cached = decode_cached_binary(payload);
    if (!cached) {
      warn("the cached CUDA entry for " + request.what + " is malformed; compiling again");
      return nullptr;
    }
    cu::CUmodule module = nullptr;
    std::string log;
    if (load_ptx(cached->image, &module, &log) != cu::CUDA_SUCCESS) {
      warn("the cached PTX for " + request.what + " did not load (" + log + "); compiling again");
      return nullptr;
    }
    g_cache_loads.fetch_add(1, std::memory_order_relaxed);
    return finish(module, cached->entry);
  };
  auto compile = [&](bool caching) {
    const abi::CSource src = request.generate();
    const std::string ptx = tack::backends::cuda::compile_ptx(src.text, src.entry, request.fp_contract);
    g_compiles.fetch_add(1, std::memory_order_relaxed);
    cu::CUmodule module = nullptr;
    std::string log;
    if (const cu::CUresult r = load_ptx(ptx, &module, &log); r != cu::CUDA_SUCCESS)
      throw CompileError("cuda: the driver did not load the PTX NVRTC made for " + request.what +
                         " (cuModuleLoadDataEx: " + cu::error_text(r) + ptx_version_hint(*context, r) + "):\n" + log +
                         "\n--- source ---\n" + src.text);
    std::string payload = caching ? encode_cached_binary(src.entry, ptx) : std::string();
    return Built<std::unique_ptr<Module>>{finish(module, src.entry), std::move(payload)};
  };
  return load_or_build<std::unique_ptr<Module>>(DiskCache::global(), make_key, load, compile);
}

std::uint64_t nvrtc_compile_count() { return g_compiles.load(); }
std::uint64_t ptx_cache_load_count() { return g_cache_loads.load(); }

}  // namespace tack::backends::cuda
