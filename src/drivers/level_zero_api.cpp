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

void resolve_required(DynamicLibrary& lib, Api& api) { TACK_LEVEL_ZERO_ENTRY_POINTS(TACK_DRIVER_ENTRY_RESOLVE) }
void resolve_optional(DynamicLibrary& lib, Api& api) {
  TACK_LEVEL_ZERO_OPTIONAL_ENTRY_POINTS(TACK_DRIVER_ENTRY_RESOLVE)
}

std::atomic<bool> g_exiting{false};

void load(Loaded& out) {
  const std::optional<std::string> forced = support::env_text("TACK_LEVEL_ZERO_LIBRARY");
  const bool opened = forced ? out.lib.open({forced->c_str()}) : out.lib.open({"libze_loader.so.1", "libze_loader.so"});
  if (!opened) {
    out.failure = "the Level Zero loader could not be loaded (" + out.lib.why() + ")";
    return;
  }
  out.api.library = out.lib.name();
  resolve_required(out.lib, out.api);
  if (!out.lib.missing().empty()) {
    out.failure = out.lib.name() + " lacks " + out.lib.missing();
    return;
  }
  // Optional: their absence changes how the backend queues and frees, not whether it works.
  resolve_optional(out.lib, out.api);
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
