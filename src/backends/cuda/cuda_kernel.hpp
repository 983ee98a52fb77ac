// Building CUDA kernels: NVRTC compiles the generated CUDA C to PTX (no target
// architecture: the driver JIT-compiles NVRTC's default virtual architecture
// at load), and the disk cache keeps the PTX with its entry name, so a variant
// an earlier process built loads without the generator or NVRTC (docs/caching.md).
#pragma once

#include "backends/cuda/cuda_context.hpp"
#include "runtime/gpu/build_request.hpp"
#include "runtime/gpu/gpu_module.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace tack::backends::cuda {
using namespace tack::runtime;

// A loaded module and the one function Tack takes from it; its group_limit is
// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK. Context::unload unloads it.
using Module = GpuModule<Context, drivers::cu::CUmodule, drivers::cu::CUfunction>;

// The module the request asks for: the cached PTX when the disk cache has it
// for the request's key, else its generated source compiled by NVRTC and
// stored. NVRTC's rejection is a CompileError with its log and the source; the driver's
// refusal of the PTX is a CompileError with the JIT log.
std::unique_ptr<Module> build_module(const std::shared_ptr<Context>& context, const BuildRequest& request);

// Modules compiled with NVRTC / loaded from cached PTX in this process (for tests and benchmarks).
std::uint64_t nvrtc_compile_count();
std::uint64_t ptx_cache_load_count();

}  // namespace tack::backends::cuda
