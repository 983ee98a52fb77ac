// The cuda backend's facts: CUDA C for NVRTC, every dtype and atomic (8- and 16-bit ones on their
// 32-bit word), textures in the texture hardware (a 3D CUDA array and texture object) within the
// device's limits.
#include "backends/cuda/cuda_description.hpp"

#include "backends/cuda/cuda_backend.hpp"
#include "codegen/cuda_gen.hpp"

namespace tack::backends::cuda {
using namespace tack::runtime;

const BackendDescription& cuda_description() {
  static const BackendDescription d{.name = "cuda",
                                    .display_name = "CUDA",
                                    .options = {"device"},
                                    .dtypes = every_dtype(),
                                    .atomic_dtypes = every_dtype(),
                                    .memory_spaces = {"cuda"},
                                    .device_reductions = true,
                                    .workgroups = true,
                                    .textures_in_hardware = true,
                                    .generate = c_family_source<codegen::generate_cuda>,
                                    .create = make_cuda_backend};
  return d;
}

}  // namespace tack::backends::cuda
