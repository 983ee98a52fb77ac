// hipRTC builds, code object loading, the disk cache of code objects, and the launch limit.
#include "backends/hip/hip_kernel.hpp"

#include "backends/hip/hiprtc_compile.hpp"
#include "codegen/c_family.hpp"
#include "drivers/rtc_api.hpp"
#include "runtime/build_id.hpp"
#include "runtime/cached_binary.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/warnings.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <atomic>

namespace tack::runtime::hip {
namespace hp = drivers::hip;
namespace {

constexpr const char* kCacheFormat = "tack-hip-code-object-1";
constexpr std::uint64_t kBlock = static_cast<std::uint64_t>(codegen::kGpuGroupSize);

std::atomic<std::uint64_t> g_compiles{0};
std::atomic<std::uint64_t> g_cache_loads{0};

}  // namespace

Module::Module(std::shared_ptr<Device> device, hp::hipModule_t module, hp::hipFunction_t function, std::string entry)
    : device_(std::move(device)), module_(module), function_(function), entry_(std::move(entry)) {}

Module::~Module() {
  try {
    DeviceScope scope(device_->info().ordinal);
    device_->synchronize();  // a queued launch may still run the module's code
    hp::api().hipModuleUnload(module_);
  } catch (const Error&) {
    // The runtime is gone (process exit): the module went with it.
  }
}

std::string cache_target(const std::string& arch, int runtime_version, int hiprtc_major, int hiprtc_minor) {
  if (arch.empty()) return "";
  std::string t = std::string(kCacheFormat) + "\narch=" + arch + "\nhip=" + std::to_string(runtime_version) +
                  "\nhiprtc=" + std::to_string(hiprtc_major) + "." + std::to_string(hiprtc_minor) + "\noptions=";
  for (const char* o : tack::hip::kHiprtcOptions) t += std::string(o) + " ";
  return t;
}

std::unique_ptr<Module> build_module(const std::shared_ptr<Device>& device, const std::string& key,
                                     const std::function<codegen::CSource()>& generate, const std::string& what) {
  const hp::Api& api = hp::api();
  DiskCache& cache = DiskCache::global();
  DeviceScope scope(device->info().ordinal);  // hipRTC compiles for, and the module loads on, the current device
  std::string cache_key;
  if (cache.enabled()) {
    std::string why;
    int major = 0, minor = 0;
    if (const drivers::RtcApi* rtc = drivers::hiprtc(&why); rtc && rtc->version(&major, &minor) == 0) {
      const std::string target = cache_target(device->info().arch, device->info().runtime_version, major, minor);
      if (!target.empty()) cache_key = target + "\n" + library_build_id() + "\n" + key;
    }
  }
  auto finish = [&](const std::string& image, const std::string& entry, bool from_cache) -> std::unique_ptr<Module> {
    hp::hipModule_t module = nullptr;
    hp::hipError_t r = api.hipModuleLoadData(&module, image.data());
    if (r != hp::hipSuccess) {
      if (from_cache) return nullptr;
      throw CompileError("hip: the runtime did not load the code object hipRTC made for " + what +
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

  if (!cache_key.empty()) {
    if (std::optional<std::string> entry = cache.load(cache_key)) {
      if (std::optional<CachedBinary> cached = decode_cached_binary(*entry)) {
        if (auto m = finish(cached->image, cached->entry, true)) {
          g_cache_loads.fetch_add(1, std::memory_order_relaxed);
          return m;
        }
        warn("the cached HIP code object for " + what + " did not load; compiling again");
      } else {
        warn("the cached HIP entry for " + what + " is malformed; compiling again");
      }
    }
  }

  const codegen::CSource src = generate();
  const std::vector<char> code = tack::hip::compile_code_object(src.text, src.entry);
  g_compiles.fetch_add(1, std::memory_order_relaxed);
  const std::string image(code.begin(), code.end());
  std::unique_ptr<Module> m = finish(image, src.entry, false);
  if (!cache_key.empty()) cache.store(cache_key, encode_cached_binary(src.entry, image));
  return m;
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

}  // namespace tack::runtime::hip
