// Compiling ahead of the first call, and what compiling has cost so far.
#pragma once

#include <tack/device.hpp>
#include <tack/kernel.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tack {

// One kernel and the arguments whose variant it should have: arrays or
// ArraySpecs, textures, scalars (a value, or a ScalarSpec for just its dtype).
struct PrecompileRequest {
  Kernel kernel;
  std::vector<KernelArg> args;
};

// Compiles (or loads from the disk cache) the variant of each request on
// `device`, launching nothing, `threads` at a time (0: one per core); later
// calls with arguments of the same kinds, dtypes and ranks find them in memory.
// Every request is tried; the first failure, in request order, is then thrown.
void precompile(const Device& device, std::span<const PrecompileRequest> requests, int threads = 0);

// What making variants has cost in this process: how many, how the disk cache
// served them, and the milliseconds of each phase (TACK_LOG=compile prints one
// line per variant with the same figures).
struct CompileStats {
  std::uint64_t variants = 0;     // variants made: compiled, or loaded from the disk cache
  std::uint64_t disk_hits = 0;    // ... of which the disk cache served
  std::uint64_t disk_misses = 0;  // ... of which were compiled with the disk cache on
  std::uint64_t front_hits = 0;   // of the hits, those found before type inference (the cache's front index)
  double trace_ms = 0;            // tracing kernels (once per kernel)
  double infer_ms = 0;            // type inference (and debug-mode checks)
  double optimize_ms = 0;         // the optimizer on Tack IR
  double codegen_ms = 0;          // generating the backend's code (LLVM IR, C, MSL)
  double compile_ms = 0;          // the backend's compiler, or all of its work where it reports no phases
  double load_ms = 0;             // loading compiled or cached code
};
CompileStats compile_stats();
void reset_compile_stats();

}  // namespace tack
