// The hip backend's facts: HIP C for hipRTC, every dtype and atomic. Its generator has the hardware
// texture path, but the runtime samples in software until its images land (docs/backends-hip.md), so
// textures_in_hardware is false and tack::inspect shows the code the device runs.
#include "backends/hip/hip_description.hpp"

#include "backends/hip/hip_backend.hpp"
#include "codegen/hip_gen.hpp"

namespace tack::backends::hip {
using namespace tack::runtime;

const BackendDescription& hip_description() {
  static const BackendDescription d{.name = "hip",
                                    .display_name = "HIP",
                                    .options = {"device"},
                                    .dtypes = every_dtype(),
                                    .atomic_dtypes = every_dtype(),
                                    .memory_spaces = {"hip"},
                                    .device_reductions = true,
                                    .workgroups = true,
                                    .generate = c_family_source<codegen::generate_hip>,
                                    .create = make_hip_backend};
  return d;
}

}  // namespace tack::backends::hip
