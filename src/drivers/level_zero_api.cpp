// Loading the Level Zero loader, resolving its entry points and naming its results.
#include "drivers/level_zero_api.hpp"

#include "drivers/loaded_driver.hpp"
#include "support/env.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace tack::drivers::ze {
namespace {

using Loaded = LoadedDriver<Api>;

std::atomic<bool> g_exiting{false};

void load(Loaded& out) {
  const std::optional<std::string> forced = support::env_text("TACK_LEVEL_ZERO_LIBRARY");
  const bool opened = forced ? out.lib.open({forced->c_str()}) : out.lib.open({"libze_loader.so.1", "libze_loader.so"});
  if (!opened) {
    out.failure = "the Level Zero loader could not be loaded (" + out.lib.why() + ")";
    return;
  }
  out.api.library = out.lib.name();
#define TACK_ZE_RESOLVE(name) out.lib.resolve(out.api.name, #name)
  TACK_ZE_RESOLVE(zeInit);
  TACK_ZE_RESOLVE(zeDriverGet);
  TACK_ZE_RESOLVE(zeDriverGetApiVersion);
  TACK_ZE_RESOLVE(zeDriverGetProperties);
  TACK_ZE_RESOLVE(zeDriverGetExtensionProperties);
  TACK_ZE_RESOLVE(zeDeviceGet);
  TACK_ZE_RESOLVE(zeDeviceGetProperties);
  TACK_ZE_RESOLVE(zeDeviceGetComputeProperties);
  TACK_ZE_RESOLVE(zeDeviceGetImageProperties);
  TACK_ZE_RESOLVE(zeDeviceGetModuleProperties);
  TACK_ZE_RESOLVE(zeDeviceGetCommandQueueGroupProperties);
  TACK_ZE_RESOLVE(zeContextCreate);
  TACK_ZE_RESOLVE(zeContextDestroy);
  TACK_ZE_RESOLVE(zeCommandListCreateImmediate);
  TACK_ZE_RESOLVE(zeCommandListDestroy);
  TACK_ZE_RESOLVE(zeCommandListAppendBarrier);
  TACK_ZE_RESOLVE(zeCommandListAppendMemoryCopy);
  TACK_ZE_RESOLVE(zeCommandListAppendMemoryFill);
  TACK_ZE_RESOLVE(zeCommandListAppendLaunchKernel);
  TACK_ZE_RESOLVE(zeMemAllocDevice);
  TACK_ZE_RESOLVE(zeMemAllocHost);
  TACK_ZE_RESOLVE(zeMemFree);
  TACK_ZE_RESOLVE(zeModuleCreate);
  TACK_ZE_RESOLVE(zeModuleDestroy);
  TACK_ZE_RESOLVE(zeModuleBuildLogGetString);
  TACK_ZE_RESOLVE(zeModuleBuildLogDestroy);
  TACK_ZE_RESOLVE(zeModuleGetNativeBinary);
  TACK_ZE_RESOLVE(zeKernelCreate);
  TACK_ZE_RESOLVE(zeKernelDestroy);
  TACK_ZE_RESOLVE(zeKernelSetArgumentValue);
  TACK_ZE_RESOLVE(zeKernelSetGroupSize);
  TACK_ZE_RESOLVE(zeEventPoolCreate);
  TACK_ZE_RESOLVE(zeEventPoolDestroy);
  TACK_ZE_RESOLVE(zeEventCreate);
  TACK_ZE_RESOLVE(zeEventDestroy);
  TACK_ZE_RESOLVE(zeEventHostSynchronize);
  TACK_ZE_RESOLVE(zeEventHostReset);
#undef TACK_ZE_RESOLVE
  if (!out.lib.missing().empty()) {
    out.failure = out.lib.name() + " lacks " + out.lib.missing();
    return;
  }
  // Optional: their absence changes how the backend queues and frees, not whether it works.
  out.api.zeCommandListHostSynchronize =
      reinterpret_cast<decltype(out.api.zeCommandListHostSynchronize)>(out.lib.symbol("zeCommandListHostSynchronize"));
  out.api.zeMemFreeExt = reinterpret_cast<decltype(out.api.zeMemFreeExt)>(out.lib.symbol("zeMemFreeExt"));
  const ze_result_t init = out.api.zeInit(0);
  if (init != ZE_RESULT_SUCCESS) {
    out.failure = "zeInit failed: " + error_text(init) + " (no Level Zero driver or device on " + out.lib.name() + ")";
    return;
  }
  // Registered after zeInit, so it runs before the driver's own exit handlers and any static Tack
  // object made earlier: from then on destructors leave Level Zero alone.
  std::atexit([] { g_exiting.store(true); });
}

}  // namespace

const Api* load(std::string* why) { return load_once<Api, load>().usable(why); }

bool exiting() { return g_exiting.load(); }

std::string error_text(ze_result_t code) {
  switch (code) {
    case ZE_RESULT_SUCCESS: return "ZE_RESULT_SUCCESS";
    case ZE_RESULT_NOT_READY: return "ZE_RESULT_NOT_READY";
    case ZE_RESULT_ERROR_DEVICE_LOST: return "ZE_RESULT_ERROR_DEVICE_LOST";
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE: return "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE";
    case ZE_RESULT_ERROR_UNINITIALIZED: return "ZE_RESULT_ERROR_UNINITIALIZED";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
    case ZE_RESULT_ERROR_INVALID_ARGUMENT: return "ZE_RESULT_ERROR_INVALID_ARGUMENT";
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY: return "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY";
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME: return "ZE_RESULT_ERROR_INVALID_KERNEL_NAME";
    default: break;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "ze_result_t 0x%08x", static_cast<unsigned>(code));
  return buf;
}

std::optional<Failure> failure(ze_result_t code, const char* call) {
  if (code == ZE_RESULT_SUCCESS) return std::nullopt;
  return Failure{call, static_cast<long long>(code), error_text(code)};
}

}  // namespace tack::drivers::ze
