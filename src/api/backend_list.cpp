// The backends this library knows. runtime/backend_description.hpp declares the
// list and this top layer defines it, so that the runtime (the registry, the
// variant cache, the launch, tack::inspect) knows no backend by name and no
// backend knows another. Each description lives in its backend's folder.
#include "runtime/backend_description.hpp"

#include "backends/cuda/cuda_description.hpp"
#include "backends/hip/hip_description.hpp"
#include "backends/interp/interp_description.hpp"
#include "backends/level_zero/level_zero_description.hpp"
#include "backends/metal/metal_description.hpp"
#include "backends/opencl/opencl_description.hpp"
#ifdef TACK_HAVE_LLVM
#include "backends/cpu/cpu_description.hpp"
#endif

namespace tack::runtime {

const std::vector<const BackendDescription*>& backend_descriptions() {
  static const std::vector<const BackendDescription*> descriptions = {
#ifdef TACK_HAVE_LLVM
      &backends::cpu::cpu_description(),  // a build without LLVM has no CPU backend at all
#endif
      &backends::cuda::cuda_description(),     &backends::hip::hip_description(),
      &backends::interp::interp_description(), &backends::level_zero::level_zero_description(),
      &backends::metal::metal_description(),   &backends::opencl::opencl_description(),
  };
  return descriptions;
}

}  // namespace tack::runtime
