// hipRTC builds, code object loading, the disk cache of code objects, and the launch limit.
#include "backends/hip/hip_kernel.hpp"

#include "abi/group_size.hpp"
#include "backends/hip/hip_driver.hpp"
#include "backends/hip/hiprtc_compile.hpp"
#include "drivers/rtc_api.hpp"
#include "runtime/cache/cached_binary.hpp"
#include "runtime/cache/load_or_build.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <atomic>

namespace tack::backends::hip {
using namespace tack::runtime;
namespace hp = hip::driver;
namespace {

constexpr const char* kCacheFormat = "tack-hip-code-object-1";
constexpr std::uint64_t kBlock = static_cast<std::uint64_t>(abi::kGroupSize);

std::atomic<std::uint64_t> g_compiles{0};
std::atomic<std::uint64_t> g_cache_loads{0};

}  // namespace

void Device::unload(hp::hipModule_t module, hp::hipFunction_t) noexcept {
  try {
    DeviceScope scope(info_.ordinal);
    synchronize();  // a queued launch may still run the module's code
    hp::api().hipModuleUnload(module);
  } catch (const Error&) {
    // The runtime is gone (process exit): the module went with it.
  }
}

std::optional<CacheKey> cache_key(const std::string& arch, int runtime_version, int hiprtc_major, int hiprtc_minor,
                                  const std::string& code, bool fp_contract) {
  if (arch.empty()) return std::nullopt;
  CacheKey k{kCacheFormat,
             "hiprtc",
             std::to_string(hiprtc_major) + "." + std::to_string(hiprtc_minor),
             arch + " hip=" + std::to_string(runtime_version),
             "",
             code};
  for (const char* o : tack::backends::hip::hiprtc_options(fp_contract)) k.options += std::string(o) + " ";
  return k;
}

std::unique_ptr<Module> build_module(const std::shared_ptr<Device>& device, const BuildRequest& request) {
  const hp::Api& api = hp::api();
  DeviceScope scope(device->info().ordinal);  // hipRTC compiles for, and the module loads on, the current device
  auto make_key = [&]() -> std::optional<CacheKey> {
    std::string why;
    int major = 0, minor = 0;
    const drivers::RtcApi* rtc = drivers::hiprtc(&why);
    if (!rtc || rtc->version(&major, &minor) != 0) return std::nullopt;
    return cache_key(device->info().arch, device->info().runtime_version, major, minor, request.key,
                     request.fp_contract);
  };
  auto finish = [&](const std::string& image, const std::string& entry, bool from_cache) -> std::unique_ptr<Module> {
    hp::hipModule_t module = nullptr;
    hp::hipError_t r = api.hipModuleLoadData(&module, image.data());
    if (r != hp::hipSuccess) {
      if (from_cache) return nullptr;
      throw CompileError("hip: the runtime did not load the code object hipRTC made for " + request.what +
                         " (hipModuleLoadData: " + hp::error_text(r) + ")");
    }
    hp::hipFunction_t function = nullptr;
    r = api.hipModuleGetFunction(&function, module, entry.c_str());
    if (r != hp::hipSuccess) {
      api.hipModuleUnload(module);
      if (from_cache) return nullptr;
      hp::check(r, "hipModuleGetFunction");
    }
    return std::make_unique<Module>(device, module, function, entry);
  };
  auto load = [&](std::string_view payload, std::string*) -> std::unique_ptr<Module> {
    const std::optional<CachedBinary> cached = decode_cached_binary(payload);
    std::unique_ptr<Module> m = cached ? finish(cached->image, cached->entry, true) : nullptr;
    if (m)
      g_cache_loads.fetch_add(1, std::memory_order_relaxed);
    else if (cached)
      warn("the cached HIP code object for " + request.what + " did not load; compiling again");
    else
      warn("the cached HIP entry for " + request.what + " is malformed; compiling again");
    return m;
  };
  auto compile = [&](bool caching) {
    const abi::CSource src = request.generate();
    const std::vector<char> code = tack::backends::hip::compile_code_object(src.text, src.entry, request.fp_contract);
    g_compiles.fetch_add(1, std::memory_order_relaxed);
    const std::string image(code.begin(), code.end());
    std::unique_ptr<Module> m = finish(image, src.entry, false);
    return Built<std::unique_ptr<Module>>{std::move(m), caching ? encode_cached_binary(src.entry, image) : ""};
  };
  return load_or_build<std::unique_ptr<Module>>(DiskCache::global(), make_key, load, compile);
}

std::uint64_t launch_limit(std::int64_t max_grid_dim_x) {
  constexpr std::uint64_t kPacketLimit = (std::uint64_t{1} << 32) - kBlock;
  if (max_grid_dim_x <= 0) return 0;
  const auto grid = static_cast<std::uint64_t>(max_grid_dim_x);
  return grid > kPacketLimit / kBlock ? kPacketLimit : std::min(grid * kBlock, kPacketLimit);
}

std::uint64_t launch_work_items(std::int64_t count, bool workgroup) {
  const auto n = static_cast<std::uint64_t>(count);
  if (workgroup) return n > UINT64_MAX / kBlock ? UINT64_MAX : n * kBlock;
  return (n / kBlock + (n % kBlock != 0)) * kBlock;
}

std::uint64_t hiprtc_compile_count() { return g_compiles.load(); }
std::uint64_t code_object_cache_load_count() { return g_cache_loads.load(); }

}  // namespace tack::backends::hip
