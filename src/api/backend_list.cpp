// The backends built into this library. runtime/registry.hpp declares the list
// and this top layer defines it, so that the runtime (the variant cache, the
// launch, tack::sync) knows no backend by name and no backend knows another.
#include "runtime/registry.hpp"

#include "backends/cuda/cuda_backend.hpp"
#include "backends/hip/hip_backend.hpp"
#include "backends/interp/interp_backend.hpp"
#include "backends/level_zero/level_zero_backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#ifdef TACK_HAVE_METAL
#include "backends/metal/metal_backend.hpp"  // Apple platforms only
#endif
#ifdef TACK_HAVE_LLVM
#include "backends/cpu/cpu_backend.hpp"
#endif

namespace tack::runtime {

const std::vector<BackendFactory>& backend_factories() {
  static const std::vector<BackendFactory> factories = {
  // The option lists equal each backend's Capabilities::device_options.
#ifdef TACK_HAVE_LLVM
      {"cpu", {"num_threads"}, [](const DeviceOptions& o) { return make_cpu_backend(o); }, warm_up_cpu_backend},
#endif
      {"cuda", {"device"}, [](const DeviceOptions& o) { return make_cuda_backend(o); }},
      {"hip", {"device"}, [](const DeviceOptions& o) { return make_hip_backend(o); }},
      {"interp", {"lanes"}, [](const DeviceOptions& o) { return make_interp_backend(o); }},
      {"level_zero",
       {"external_context", "external_device", "external_driver"},
       [](const DeviceOptions& o) { return make_level_zero_backend(o); }},
#ifdef TACK_HAVE_METAL
      {"metal", {}, [](const DeviceOptions& o) { return make_metal_backend(o); }},
#endif
      {"opencl", {"device"}, [](const DeviceOptions& o) { return make_opencl_backend(o); }},
  };
  return factories;
}

}  // namespace tack::runtime
