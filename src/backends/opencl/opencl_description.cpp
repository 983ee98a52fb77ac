// The opencl backend's facts: OpenCL C for clBuildProgram, as for a device with cl_khr_fp64 and
// cl_khr_int64_base_atomics (a device narrows both to what it reports); textures sampled in software.
#include "backends/opencl/opencl_description.hpp"

#include "backends/opencl/opencl_backend.hpp"
#include "codegen/opencl_gen.hpp"

namespace tack::backends::opencl {
using namespace tack::runtime;

const BackendDescription& opencl_description() {
  static const BackendDescription d{.name = "opencl",
                                    .display_name = "OpenCL",
                                    .options = {"device"},
                                    .dtypes = every_dtype(),
                                    .atomic_dtypes = every_dtype(),
                                    .device_reductions = true,
                                    .workgroups = true,
                                    .generate = c_family_source<codegen::generate_opencl>,
                                    .create = make_opencl_backend};
  return d;
}

}  // namespace tack::backends::opencl
