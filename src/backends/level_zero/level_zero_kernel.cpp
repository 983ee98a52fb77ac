// ocloc to SPIR-V, zeModuleCreate, and the disk cache of native binaries beside the SPIR-V.
#include "backends/level_zero/level_zero_kernel.hpp"

#include "backends/level_zero/level_zero_driver.hpp"
#include "backends/level_zero/ocloc_compile.hpp"
#include "drivers/ocloc_api.hpp"
#include "runtime/cache/load_or_build.hpp"
#include "runtime/diagnostics/warnings.hpp"
#include "support/loaded_file.hpp"

#include <tack/error.hpp>

#include <atomic>
#include <charconv>

#include <sys/stat.h>

namespace tack::backends::level_zero {
using namespace tack::runtime;
namespace {
namespace ze = level_zero::driver;

// The entry's layout; the generated code's version is the library's build id, which key_text adds.
constexpr const char* kCacheFormat = "tack-level-zero-native-1";

std::atomic<std::uint64_t> g_ocloc{0};
std::atomic<std::uint64_t> g_native_loads{0};
std::atomic<std::uint64_t> g_native_refused{0};

// libocloc has no version call that does not start the compiler (the 191 ms floor): the loaded file's path,
// size and modification time stand for its version.
std::string ocloc_identity() {
  std::string why;
  const drivers::OclocApi* api = drivers::ocloc(&why);
  if (!api) return "none";
  std::string path = support::loaded_file_of(reinterpret_cast<const void*>(api->oclocInvoke));
  if (path.empty()) path = api->library;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return path;
  return path + " size=" + std::to_string(st.st_size) + " mtime=" + std::to_string(st.st_mtime);
}

// zeModuleCreate; on failure the build log in *log.
ze::ze_result_t create_module(const Queue& queue, int format, const std::string& input, ze::ze_module_handle_t* module,
                              std::string* log) {
  const ze::Api& api = ze::api();
  ze::ze_module_desc_t desc{};
  desc.stype = ze::ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = format;
  desc.inputSize = input.size();
  desc.pInputModule = reinterpret_cast<const std::uint8_t*>(input.data());
  desc.pBuildFlags = tack::backends::level_zero::kOclocOptions;  // the module build flags: the same OpenCL options
  ze::ze_module_build_log_handle_t build_log = nullptr;
  const ze::ze_result_t r =
      api.zeModuleCreate(queue.device().context, queue.device().device, &desc, module, &build_log);
  if (build_log) {
    if (r != ze::ZE_RESULT_SUCCESS && log) {
      std::size_t size = 0;
      if (api.zeModuleBuildLogGetString(build_log, &size, nullptr) == ze::ZE_RESULT_SUCCESS && size) {
        std::string text(size, '\0');
        if (api.zeModuleBuildLogGetString(build_log, &size, text.data()) == ze::ZE_RESULT_SUCCESS) {
          while (!text.empty() && text.back() == '\0') text.pop_back();
          *log = text;
        }
      }
    }
    api.zeModuleBuildLogDestroy(build_log);
  }
  return r;
}

std::unique_ptr<Module> finish(const std::shared_ptr<Queue>& queue, ze::ze_module_handle_t module,
                               const std::string& entry) {
  const ze::Api& api = ze::api();
  ze::ze_kernel_desc_t desc{ze::ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, entry.c_str()};
  ze::ze_kernel_handle_t kernel = nullptr;
  const ze::ze_result_t r = api.zeKernelCreate(module, &desc, &kernel);
  if (r != ze::ZE_RESULT_SUCCESS) {
    api.zeModuleDestroy(module);
    ze::check(r, "zeKernelCreate");
  }
  return std::make_unique<Module>(queue, module, kernel, entry);
}

std::string native_binary(ze::ze_module_handle_t module) {
  const ze::Api& api = ze::api();
  std::size_t size = 0;
  if (api.zeModuleGetNativeBinary(module, &size, nullptr) != ze::ZE_RESULT_SUCCESS || size == 0) return "";
  std::string binary(size, '\0');
  if (api.zeModuleGetNativeBinary(module, &size, reinterpret_cast<std::uint8_t*>(binary.data())) !=
      ze::ZE_RESULT_SUCCESS)
    return "";
  binary.resize(size);
  return binary;
}

}  // namespace

void Queue::unload(ze::ze_module_handle_t module, ze::ze_kernel_handle_t kernel) noexcept {
  if (ze::exiting()) return;
  ze::api().zeKernelDestroy(kernel);
  ze::api().zeModuleDestroy(module);
}

std::string encode_artifact(const Artifact& a) {
  return "ENTRY:" + a.entry + "\nSPIRV:" + std::to_string(a.spirv.size()) +
         "\nNATIVE:" + std::to_string(a.native.size()) + "\n" + a.spirv + a.native;
}

std::optional<Artifact> decode_artifact(std::string_view p) {
  Artifact a;
  auto line = [&](std::string_view tag, std::string* text, std::size_t* number) {
    if (p.substr(0, tag.size()) != tag) return false;
    const std::size_t nl = p.find('\n');
    if (nl == std::string_view::npos) return false;
    std::string_view value = p.substr(tag.size(), nl - tag.size());
    p.remove_prefix(nl + 1);
    if (text) {
      *text = std::string(value);
      return !text->empty();
    }
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), *number);
    return ec == std::errc() && end == value.data() + value.size();
  };
  std::size_t spirv = 0, native = 0;
  if (!line("ENTRY:", &a.entry, nullptr) || !line("SPIRV:", nullptr, &spirv) || !line("NATIVE:", nullptr, &native))
    return std::nullopt;
  if (spirv == 0 || p.size() != spirv + native) return std::nullopt;
  a.spirv = std::string(p.substr(0, spirv));
  a.native = std::string(p.substr(spirv));
  return a;
}

CacheKey cache_key(const DeviceInfo& d, const std::string& code) {
  static const std::string ocloc = ocloc_identity();
  // The module build flags are the same OpenCL options as ocloc's (create_module).
  return CacheKey{kCacheFormat,
                  "ocloc",
                  ocloc + " | driver " + std::to_string(d.driver_version) + " | api " + std::to_string(d.api_version),
                  d.name + " | " + d.device_arg() + " | ip " + std::to_string(d.ip_version) +
                      " | f64=" + (d.fp64_flags ? "1" : "0"),
                  tack::backends::level_zero::kOclocOptions,
                  code};
}

std::unique_ptr<Module> build_module(const std::shared_ptr<Queue>& queue, const BuildRequest& request) {
  auto make_key = [&] { return std::optional<CacheKey>(cache_key(queue->device(), request.key)); };
  // A native binary first; the SPIR-V beside it when the driver refuses that (another driver or stepping).
  auto load = [&](std::string_view payload, std::string* store_again) -> std::unique_ptr<Module> {
    std::optional<Artifact> a = decode_artifact(payload);
    if (!a) {
      warn("the cached Level Zero entry for " + request.what + " is malformed; compiling again");
      return nullptr;
    }
    ze::ze_module_handle_t module = nullptr;
    if (!a->native.empty()) {
      if (create_module(*queue, ze::ZE_MODULE_FORMAT_NATIVE, a->native, &module, nullptr) == ze::ZE_RESULT_SUCCESS) {
        g_native_loads.fetch_add(1, std::memory_order_relaxed);
        return finish(queue, module, a->entry);
      }
      g_native_refused.fetch_add(1, std::memory_order_relaxed);
    }
    std::string log;
    if (create_module(*queue, ze::ZE_MODULE_FORMAT_IL_SPIRV, a->spirv, &module, &log) != ze::ZE_RESULT_SUCCESS) {
      warn("the cached SPIR-V for " + request.what + " did not load (" + log + "); compiling again");
      return nullptr;
    }
    // Stored again with the binary this driver makes, so the next process loads it natively.
    a->native = native_binary(module);
    *store_again = encode_artifact(*a);
    return finish(queue, module, a->entry);
  };
  auto compile = [&](bool caching) {
    const abi::CSource src = request.generate();
    // ocloc reads an in-memory source as a C string: compile_with_ocloc passes it null-terminated.
    const std::string spirv =
        tack::backends::level_zero::compile_with_ocloc(src.text, queue->device().device_arg(), /*spirv_only=*/true)
            .spirv;
    g_ocloc.fetch_add(1, std::memory_order_relaxed);
    ze::ze_module_handle_t module = nullptr;
    std::string log;
    if (const ze::ze_result_t r = create_module(*queue, ze::ZE_MODULE_FORMAT_IL_SPIRV, spirv, &module, &log);
        r != ze::ZE_RESULT_SUCCESS)
      throw CompileError("level_zero: " + queue->device().name + " did not build the SPIR-V of " + request.what +
                         " (zeModuleCreate: " + ze::error_text(r) + ", flags '" +
                         tack::backends::level_zero::kOclocOptions + "'):\n" + log + "\n--- source ---\n" + src.text);
    std::string payload = caching ? encode_artifact({src.entry, spirv, native_binary(module)}) : std::string();
    return Built<std::unique_ptr<Module>>{finish(queue, module, src.entry), std::move(payload)};
  };
  return load_or_build<std::unique_ptr<Module>>(DiskCache::global(), make_key, load, compile);
}

std::uint64_t ocloc_compile_count() { return g_ocloc.load(); }
std::uint64_t native_load_count() { return g_native_loads.load(); }
std::uint64_t native_refused_count() { return g_native_refused.load(); }

}  // namespace tack::backends::level_zero
