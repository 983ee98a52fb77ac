// Building Metal kernels (reference: Metal, Compilation and Launch): MSL
// compiled from source with newLibraryWithSource and fast math off, the entry
// function and its compute pipeline state. TACK_DUMP_MSL writes each compiled
// source to /tmp/tack_<entry>.msl. Plain C++ (the policies below are tested on
// every platform); the Metal objects are behind an opaque handle.
#pragma once

#include "abi/c_source.hpp"
#include "abi/group_size.hpp"
#include "runtime/gpu/build_request.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

namespace tack::backends::metal {

class Device;
struct PipelineObjects;

class Pipeline {
 public:
  Pipeline(std::unique_ptr<PipelineObjects> objects, std::string entry, std::size_t max_threads);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  PipelineObjects& objects() const { return *objects_; }
  const std::string& entry() const { return entry_; }
  // maxTotalThreadsPerThreadgroup: below the device's limit when the kernel needs many registers.
  std::size_t max_threads() const { return max_threads_; }

 private:
  std::unique_ptr<PipelineObjects> objects_;
  std::string entry_;
  std::size_t max_threads_ = 0;
};

// Compiles `source` and builds its pipeline. `what` names it in errors
// ("kernel 'saxpy'"). Each of the three steps failing is a CompileError; the
// library's includes the MSL source.
std::unique_ptr<Pipeline> build_pipeline(const Device& device, const abi::CSource& source, const std::string& what);

// The pipeline for the request's key (the text that decides the code, the typed IR): the disk cache's MSL
// source for it when there is one, else the request's generator's, stored (reference: Metal's disk-cache
// artifact is the MSL source; Metal makes no library binary at run time that a later process could load, so
// a hit skips Tack's generator, and Metal's own shader cache the rest). The cache key adds the OS version,
// whose Metal compiler the source was accepted by.
std::unique_ptr<Pipeline> build_pipeline(const Device& device, const runtime::BuildRequest& request);

// The generated kernel's argument buffer, struct <entry>_args (codegen/msl_gen.cpp): one 8-byte field per
// buffer parameter in GpuLayout::buffer_args order (a pointer's GPU address, or a texture's MTLResourceID),
// then long __n__. No field has an [[id(n)]], so to Metal it is a plain struct, not an encoder's.
inline constexpr std::size_t kArgumentFieldBytes = 8;
inline std::size_t argument_buffer_bytes(std::size_t buffer_params) {
  return (buffer_params + 1) * kArgumentFieldBytes;
}

// The loop index is declared long but starts from [[thread_position_in_grid]],
// which Metal types as uint: one dispatch covers at most 2^32 threads (_MAX_LAUNCH).
inline constexpr std::uint64_t kMaxLaunch = std::uint64_t{1} << 32;

// Refuses a launch past kMaxLaunch threads with InvalidArgument, before anything is encoded: `count`
// work-items of a parallel kernel, or groups of abi::kGroupSize threads of a workgroup kernel.
inline void check_launch(const std::string& kernel, std::int64_t count, bool workgroup) {
  if (count <= 0) return;
  const auto n = static_cast<std::uint64_t>(count);
  const std::uint64_t group = static_cast<std::uint64_t>(abi::kGroupSize);
  const bool fits = workgroup ? n <= kMaxLaunch / group : n <= kMaxLaunch;
  if (fits) return;
  throw InvalidArgument("kernel '" + kernel + "': a launch of " + std::to_string(count) +
                        (workgroup ? " groups of " + std::to_string(group) + " threads" : std::string(" work-items")) +
                        " is more than one Metal dispatch covers (2^32 threads: [[thread_position_in_grid]] is a "
                        "uint); split it into launches of at most " +
                        std::to_string(workgroup ? kMaxLaunch / group : kMaxLaunch));
}

// TACK_DUMP_MSL is a boolean flag (support::parse_env_flag's spellings).
inline bool msl_dump_enabled() { return support::env_flag("TACK_DUMP_MSL"); }
inline std::string msl_dump_path(const std::string& entry) { return "/tmp/tack_" + entry + ".msl"; }

// Writes the source about to be compiled to msl_dump_path(entry) when the flag is set; a failed write is
// ignored (the dump is a debugging aid and must not stop the compile).
inline void dump_msl(const abi::CSource& source) {
  if (!msl_dump_enabled()) return;
  std::ofstream out(msl_dump_path(source.entry), std::ios::binary | std::ios::trunc);
  out << source.text;
}

}  // namespace tack::backends::metal
