// Loading the CUDA driver, resolving its entry points and naming its errors.
#include "drivers/cuda_api.hpp"

#include "drivers/loaded_driver.hpp"
#include "support/env.hpp"

#include <cstdlib>

namespace tack::drivers::cu {
namespace {

using Loaded = LoadedDriver<Api>;

void resolve_entry_points(DynamicLibrary& lib, Api& api) { TACK_CUDA_ENTRY_POINTS(TACK_DRIVER_ENTRY_RESOLVE) }

void load(Loaded& out) {
  const std::optional<std::string> forced = support::env_text("TACK_CUDA_LIBRARY");
  const bool opened = forced ? out.lib.open({forced->c_str()}) : out.lib.open({"libcuda.so.1", "libcuda.so"});
  if (!opened) {
    out.failure = "the CUDA driver could not be loaded (" + out.lib.why() + ")";
    return;
  }
  out.api.library = out.lib.name();
  resolve_entry_points(out.lib, out.api);
  if (!out.lib.missing().empty()) {
    out.failure = out.lib.name() + " lacks " + out.lib.missing() + " (Tack needs a CUDA 12 or newer driver)";
    return;
  }
  const CUresult init = out.api.cuInit(0);
  if (init == CUDA_ERROR_STUB_LIBRARY) {
    out.failure = out.lib.name() + " is the toolkit's stub library, not a driver";
  } else if (init == CUDA_ERROR_NO_DEVICE) {
    out.failure = "the CUDA driver (" + out.lib.name() + ") reports no device";
  } else if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    out.failure =
        "cuInit failed: " +
        std::string(out.api.cuGetErrorName(init, &name) == CUDA_SUCCESS && name ? name : std::to_string(init));
  }
}

}  // namespace

const Api* load(std::string* why) { return load_once<Api, load>().usable(why); }

std::string error_text(CUresult code) {
  const Api* a = load(nullptr);
  const char* name = nullptr;
  const char* text = nullptr;
  std::string out =
      a && a->cuGetErrorName(code, &name) == CUDA_SUCCESS && name ? name : "CUresult " + std::to_string(code);
  if (a && a->cuGetErrorString(code, &text) == CUDA_SUCCESS && text) out += std::string(" (") + text + ")";
  return out;
}

std::optional<Failure> failure(CUresult code, const char* call) {
  if (code == CUDA_SUCCESS) return std::nullopt;
  return Failure{call, code, error_text(code)};
}

}  // namespace tack::drivers::cu
