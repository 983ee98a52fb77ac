// Loading the CUDA driver, resolving its entry points and naming its errors.
#include "drivers/cuda_api.hpp"

#include "drivers/loaded_driver.hpp"
#include "support/env.hpp"

#include <cstdlib>

namespace tack::drivers::cu {
namespace {

using Loaded = LoadedDriver<Api>;

void load(Loaded& out) {
  const std::optional<std::string> forced = support::env_text("TACK_CUDA_LIBRARY");
  const bool opened = forced ? out.lib.open({forced->c_str()}) : out.lib.open({"libcuda.so.1", "libcuda.so"});
  if (!opened) {
    out.failure = "the CUDA driver could not be loaded (" + out.lib.why() + ")";
    return;
  }
  out.api.library = out.lib.name();
#define TACK_CU_RESOLVE(name) out.lib.resolve(out.api.name, #name)
  TACK_CU_RESOLVE(cuInit);
  TACK_CU_RESOLVE(cuDriverGetVersion);
  TACK_CU_RESOLVE(cuGetErrorName);
  TACK_CU_RESOLVE(cuGetErrorString);
  TACK_CU_RESOLVE(cuDeviceGetCount);
  TACK_CU_RESOLVE(cuDeviceGet);
  TACK_CU_RESOLVE(cuDeviceGetName);
  TACK_CU_RESOLVE(cuDeviceGetAttribute);
  TACK_CU_RESOLVE(cuDeviceTotalMem_v2);
  TACK_CU_RESOLVE(cuDevicePrimaryCtxRetain);
  TACK_CU_RESOLVE(cuDevicePrimaryCtxRelease_v2);
  TACK_CU_RESOLVE(cuCtxGetCurrent);
  TACK_CU_RESOLVE(cuCtxSetCurrent);
  TACK_CU_RESOLVE(cuCtxPushCurrent_v2);
  TACK_CU_RESOLVE(cuCtxPopCurrent_v2);
  TACK_CU_RESOLVE(cuCtxGetDevice);
  TACK_CU_RESOLVE(cuStreamCreate);
  TACK_CU_RESOLVE(cuStreamDestroy_v2);
  TACK_CU_RESOLVE(cuStreamSynchronize);
  TACK_CU_RESOLVE(cuStreamQuery);
  TACK_CU_RESOLVE(cuEventCreate);
  TACK_CU_RESOLVE(cuEventRecord);
  TACK_CU_RESOLVE(cuEventSynchronize);
  TACK_CU_RESOLVE(cuEventQuery);
  TACK_CU_RESOLVE(cuEventDestroy_v2);
  TACK_CU_RESOLVE(cuMemGetInfo_v2);
  TACK_CU_RESOLVE(cuMemAlloc_v2);
  TACK_CU_RESOLVE(cuMemFree_v2);
  TACK_CU_RESOLVE(cuMemAllocAsync);
  TACK_CU_RESOLVE(cuMemFreeAsync);
  TACK_CU_RESOLVE(cuDeviceGetDefaultMemPool);
  TACK_CU_RESOLVE(cuMemPoolSetAttribute);
  TACK_CU_RESOLVE(cuMemcpyHtoDAsync_v2);
  TACK_CU_RESOLVE(cuMemcpyDtoH_v2);
  TACK_CU_RESOLVE(cuMemcpyDtoDAsync_v2);
  TACK_CU_RESOLVE(cuMemsetD8Async);
  TACK_CU_RESOLVE(cuMemsetD16Async);
  TACK_CU_RESOLVE(cuMemsetD32Async);
  TACK_CU_RESOLVE(cuMemsetD2D32Async);
  TACK_CU_RESOLVE(cuModuleLoadDataEx);
  TACK_CU_RESOLVE(cuModuleUnload);
  TACK_CU_RESOLVE(cuModuleGetFunction);
  TACK_CU_RESOLVE(cuFuncGetAttribute);
  TACK_CU_RESOLVE(cuLaunchKernel);
  TACK_CU_RESOLVE(cuArray3DCreate_v2);
  TACK_CU_RESOLVE(cuArrayDestroy);
  TACK_CU_RESOLVE(cuMemcpy3DAsync_v2);
  TACK_CU_RESOLVE(cuTexObjectCreate);
  TACK_CU_RESOLVE(cuTexObjectDestroy);
  TACK_CU_RESOLVE(cuMemGetAllocationGranularity);
  TACK_CU_RESOLVE(cuMemCreate);
  TACK_CU_RESOLVE(cuMemRelease);
  TACK_CU_RESOLVE(cuMemAddressReserve);
  TACK_CU_RESOLVE(cuMemAddressFree);
  TACK_CU_RESOLVE(cuMemMap);
  TACK_CU_RESOLVE(cuMemUnmap);
  TACK_CU_RESOLVE(cuMemSetAccess);
  TACK_CU_RESOLVE(cuMemExportToShareableHandle);
  TACK_CU_RESOLVE(cuMemGetAddressRange_v2);
  TACK_CU_RESOLVE(cuPointerGetAttribute);
#undef TACK_CU_RESOLVE
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
