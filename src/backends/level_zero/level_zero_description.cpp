// The level_zero backend's facts: OpenCL C for libocloc, as for a device with f64 and 64-bit atomics (a
// device narrows both to what it reports); textures sampled in software until its images land. The three
// external handles come together or not at all.
#include "backends/level_zero/level_zero_description.hpp"

#include "backends/level_zero/level_zero_backend.hpp"
#include "codegen/opencl_gen.hpp"

namespace tack::backends::level_zero {
using namespace tack::runtime;

const BackendDescription& level_zero_description() {
  static const BackendDescription d{.name = "level_zero",
                                    .display_name = "Level Zero",
                                    .options = {"external_context", "external_device", "external_driver"},
                                    .dtypes = every_dtype(),
                                    .atomic_dtypes = every_dtype(),
                                    .memory_spaces = {"level_zero"},
                                    .device_reductions = true,
                                    .workgroups = true,
                                    .generate = c_family_source<codegen::generate_opencl>,
                                    .create = make_level_zero_backend};
  return d;
}

}  // namespace tack::backends::level_zero
