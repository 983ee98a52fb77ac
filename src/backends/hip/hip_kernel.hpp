// Building HIP kernels (reference: HIP, Compilation and Launch): hipRTC
// compiles the generated HIP C with -ffp-contract=on for the current device
// (hip::compile_code_object), and the code object is loaded with
// hipModuleLoadData. The disk cache keeps the code object with its entry
// name; a code object is machine code for one architecture, so the key names
// the device's gcnArchName, and without one (ROCm before 6, whose device
// properties struct Tack does not read) nothing is cached. The scalar-pack
// layout is not stored: it is remade from the typed IR, as on CUDA.
#pragma once

#include "backends/hip/hip_device.hpp"
#include "runtime/cache/cache_key.hpp"
#include "runtime/gpu/build_request.hpp"
#include "runtime/gpu/gpu_module.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tack::backends::hip {
using namespace tack::runtime;

// A loaded module and the one function Tack takes from it; Device::unload unloads it.
using Module = GpuModule<Device, drivers::hip::hipModule_t, drivers::hip::hipFunction_t>;

// The module the request asks for: the cached code object when the disk cache has it for the request's key and
// this device's architecture, else its generated source compiled by hipRTC and stored. hipRTC's rejection
// is a CompileError with its log and the source; the runtime's refusal of the code object a CompileError too.
std::unique_ptr<Module> build_module(const std::shared_ptr<Device>& device, const BuildRequest& request);

// The disk-cache key of `code` (the text that decides it) for a device, or nullopt when the code object must
// not be cached (no architecture name): exposed for tests. `fp_contract` picks hiprtc_options().
std::optional<CacheKey> cache_key(const std::string& arch, int runtime_version, int hiprtc_major, int hiprtc_minor,
                                  const std::string& code, bool fp_contract);

// The most work-items one launch may have (reference: HIP, Launch): the device's maximum gridDim.x times 256,
// capped at 2^32 - 256, because the dispatch packet on AMD GPUs holds the grid's total work-item count in
// 32 bits.
std::uint64_t launch_limit(std::int64_t max_grid_dim_x);
// The work-items a launch of `count` has: count rounded up to whole blocks of 256, or count groups of 256.
std::uint64_t launch_work_items(std::int64_t count, bool workgroup);

// Modules compiled by hipRTC / loaded from cached code objects in this process (tests and benchmarks).
std::uint64_t hiprtc_compile_count();
std::uint64_t code_object_cache_load_count();

}  // namespace tack::backends::hip
