// Building Level Zero kernels (reference: Level Zero, Compilation; "The cost of
// ocloc"): the generated OpenCL C goes through libocloc in process to SPIR-V,
// then zeModuleCreate with the same OpenCL options as build flags; a refused
// build is a CompileError with the module build log and the source. An ocloc
// call costs about 191 ms however small the kernel, so the disk cache keeps the
// native binary the driver made (zeModuleGetNativeBinary) beside the SPIR-V: a
// new process loads it as ZE_MODULE_FORMAT_NATIVE in about 0.2 ms, and a binary
// the driver refuses (a new driver, another stepping) loads from the SPIR-V
// instead, counted as native_refused. The key names everything that changes the
// binary: the device and its IP version, the driver, ocloc and its options, the
// build flags and f64 support.
#pragma once

#include "backends/level_zero/level_zero_queue.hpp"
#include "runtime/cache/cache_key.hpp"
#include "runtime/gpu/build_request.hpp"
#include "runtime/gpu/gpu_module.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tack::backends::level_zero {
using namespace tack::runtime;

// A module and the one kernel Tack takes from it; Queue::unload destroys them.
using Module = GpuModule<Queue, drivers::ze::ze_module_handle_t, drivers::ze::ze_kernel_handle_t>;

// A disk-cache entry: the kernel's name, its SPIR-V and the driver's native binary (may be empty).
struct Artifact {
  std::string entry, spirv, native;
};
std::string encode_artifact(const Artifact& a);
std::optional<Artifact> decode_artifact(std::string_view payload);  // nullopt when malformed

// The disk-cache key of `code` (the text that decides it) on this device.
CacheKey cache_key(const DeviceInfo& d, const std::string& code);

// The module the request asks for: from the disk cache when it has an entry
// for the request's key, else its generated source compiled by ocloc and
// zeModuleCreate, and stored.
std::unique_ptr<Module> build_module(const std::shared_ptr<Queue>& queue, const BuildRequest& request);

// In this process (for tests and benchmarks): ocloc compilations, modules
// loaded from a cached native binary, cached native binaries the driver
// refused (then loaded from the cached SPIR-V).
std::uint64_t ocloc_compile_count();
std::uint64_t native_load_count();
std::uint64_t native_refused_count();

}  // namespace tack::backends::level_zero
