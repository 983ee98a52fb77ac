// The backends this library knows, and what each is without a device: one
// table, so they compare row by row as in docs/backends.md. A row carries its
// compile recipe (how the pipeline lowers for it and what emits its code), the
// only place a generator is named.
// runtime/devices/backend_description.hpp declares the list and this top layer
// defines it, so that the runtime (the registry, the variant cache, the
// launch, tack::inspect) knows no backend by name and no backend knows
// another; a backend's device reads its own row by name.
#include "runtime/devices/backend_description.hpp"

#include "backends/cuda/cuda_backend.hpp"
#include "backends/hip/hip_backend.hpp"
#include "backends/interp/interp_backend.hpp"
#include "backends/level_zero/level_zero_backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "codegen/cuda_gen.hpp"
#include "codegen/hip_gen.hpp"
#include "codegen/msl_gen.hpp"
#include "codegen/opencl_gen.hpp"
#include "passes/pipeline.hpp"
#ifdef TACK_HAVE_LLVM
#include "backends/cpu/cpu_backend.hpp"
#endif
#ifdef TACK_HAVE_METAL
#include "backends/metal/metal_backend.hpp"  // Apple platforms only
#endif

namespace tack::api {
using namespace runtime;  // the table's types: BackendDescription, Feature, c_family_source
namespace {
#ifdef TACK_HAVE_METAL
constexpr auto kMetalCreate = backends::metal::make_metal_backend;
#else
constexpr std::shared_ptr<Backend> (*kMetalCreate)(const DeviceOptions&) = nullptr;
#endif
}  // namespace

const std::vector<const BackendDescription*>& backend_descriptions() {
  using enum Feature;
  // In name order.
  static const BackendDescription table[] = {
#ifdef TACK_HAVE_LLVM
      // LLVM-compiled kernels on a thread pool, every dtype and atomic (a host atomic or a compare-and-swap loop),
      // reductions on the host. A workgroup kernel becomes loops over its work-items. Its source is LLVM IR, which
      // the compiler plugin makes from the lowered kernel on a device, so it has no emitter here. A build without
      // LLVM has no CPU backend at all.
      {.name = "cpu",
       .display_name = "CPU",
       .options = {"num_threads"},
       .features = F64 | Atomics64 | Workgroups,
       .recipe = {.lowering = passes::kCpuLowering},
       .create = backends::cpu::make_cpu_backend},
#endif
      // CUDA C for NVRTC, every dtype and atomic (8- and 16-bit ones on their 32-bit word), textures in the
      // texture hardware (a 3D CUDA array and texture object) within the device's limits.
      {.name = "cuda",
       .display_name = "CUDA",
       .options = {"device"},
       .memory_spaces = {"cuda", "cuda_pinned", "cuda_managed"},
       .features = F64 | Atomics64 | DeviceReductions | Workgroups | TexturesInHardware,
       .recipe = {.lowering = passes::kCFamilyLowering, .emit = codegen::generate_cuda},
       .create = backends::cuda::make_cuda_backend},
      // HIP C for hipRTC, every dtype and atomic, textures in the texture hardware (a 3D HIP array and texture
      // object) where the device has image support and the shape fits, else in software (decided per texture).
      {.name = "hip",
       .display_name = "HIP",
       .options = {"device"},
       .memory_spaces = {"hip", "hip_pinned", "hip_managed"},
       .features = F64 | Atomics64 | DeviceReductions | Workgroups | TexturesInHardware,
       .recipe = {.lowering = passes::kCFamilyLowering, .emit = codegen::generate_hip},
       .create = backends::hip::make_hip_backend},
      // The reference interpreter runs every dtype, atomic and workgroup; reductions run on the host. It runs the
      // typed IR itself, unlowered, so its source is that IR's text.
      {.name = "interp",
       .display_name = "Interpreter",
       .options = {"lanes"},
       .features = F64 | Atomics64 | Workgroups,
       .recipe = {.emit = ir_text},
       .create = backends::interp::make_interp_backend},
      // OpenCL C for libocloc, as for a device with f64 and 64-bit atomics (a device narrows both to what it
      // reports); textures in 3D images read through a sampler where the device has samplers and within
      // maxImageDims3D (a device without samplers, as Xe-HPC, samples in software). The three external handles
      // come together or not at all.
      {.name = "level_zero",
       .display_name = "Level Zero",
       .options = {"external_context", "external_device", "external_driver"},
       .memory_spaces = {"level_zero"},
       .features = F64 | Atomics64 | DeviceReductions | Workgroups | TexturesInHardware,
       .recipe = {.lowering = passes::kCFamilyLowering, .emit = codegen::generate_opencl},
       .create = backends::level_zero::make_level_zero_backend},
      // MSL, no f64, and no 64-bit atomics (Metal has no 64-bit compare-and-swap). The runtime is built on Apple
      // platforms only; elsewhere only the generator is here. Textures in the texture hardware (a 3D R32Float
      // MTLTexture and a constexpr sampler) where the GPU filters 32-bit floats and within its 3D limit.
      {.name = "metal",
       .display_name = "Metal",
       .features = DeviceReductions | Workgroups | TexturesInHardware,
       .recipe = {.lowering = passes::kCFamilyLowering, .emit = codegen::generate_msl},
       .create = kMetalCreate},
      // OpenCL C for clBuildProgram, as for a device with cl_khr_fp64 and cl_khr_int64_base_atomics (a device
      // narrows both to what it reports); textures sampled in software.
      {.name = "opencl",
       .display_name = "OpenCL",
       .options = {"device"},
       .features = F64 | Atomics64 | DeviceReductions | Workgroups,
       .recipe = {.lowering = passes::kCFamilyLowering, .emit = codegen::generate_opencl},
       .create = backends::opencl::make_opencl_backend},
  };
  static const std::vector<const BackendDescription*> descriptions = [] {
    std::vector<const BackendDescription*> out;
    for (const BackendDescription& d : table) out.push_back(&d);
    return out;
  }();
  return descriptions;
}

}  // namespace tack::api
