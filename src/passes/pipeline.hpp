// The compile pipeline: every pass a kernel goes through, from traced IR to what
// a backend's code generator reads, in order, in one function (run_pipeline in
// pipeline.cpp reads as the script, in the manner of Halide's Lower.cpp). After
// each step TACK_DUMP_IR=1 prints the IR to stderr, and the verifier checks it
// when verifying() (TACK_VERIFY=1, or any build without NDEBUG).
//
//   typing      infer_types, lower_bool_arrays, check_barriers, autodiff::adjoint or jvp (derivative
//               kernels only), bounds_checks (debug mode only), lower_prints, check_capabilities
//   optimizing  simplify, cse, simplify, dce
//   lowering    lower_workgroups (backends that run a group on one thread; for
//               workgroup kernels), pack_scalars (the C-family backends), as the
//               backend's row asks (its recipe: runtime/devices/compile_recipe.hpp)
//
// The runtime runs it once per variant (runtime/kernels/resolve_variant.cpp) and
// hands the backend both the optimized kernel, by which caches are keyed, and the
// lowered one its code generator reads. The optimizing and lowering parts are
// also callable alone, for tools that start from typed or optimized IR (the code
// generators' tests, the compile checks).
#pragma once

#include "ir/ir.hpp"
#include "passes/bounds_checks.hpp"
#include "passes/infer_types.hpp"
#include "passes/lower_prints.hpp"
#include "passes/pack_scalars.hpp"

#include <tack/device.hpp>

#include <vector>

namespace tack::passes {

// What typing needs to know of one call.
struct TypingRequest {
  std::vector<ParamType> params;       // by parameter: the argument's dtype and rank
  std::vector<bool> hardware_texture;  // by parameter: a Texture3D the backend samples in hardware
  bool debug = false;                  // debug mode: every array access is checked
  DeviceLimits device;                 // what the backend computes (f64), for inference's refusals
  // What the backend runs (its device's Capabilities): check_capabilities refuses the rest. Null checks
  // nothing (tests of the passes alone).
  const Capabilities* capabilities = nullptr;
};

// What a backend's code generator needs beyond optimized IR.
struct BackendLowering {
  bool work_item_loops = false;  // a workgroup kernel as loops over its work-items (the CPU)
  bool pack_scalars = false;     // host scalars read from pack arrays (the C-family backends)
};

// What the backends' rows ask for: cpu runs a whole group on one thread; cuda, hip,
// level_zero, metal and opencl share the C-family code generator.
inline constexpr BackendLowering kCpuLowering{.work_item_loops = true};
inline constexpr BackendLowering kCFamilyLowering{.pack_scalars = true};

// One kernel through the pipeline for one call.
struct Specialized {
  ir::Kernel kernel;                         // typed and optimized: what the caches key by and the launch reads
  PackedKernel lowered;                      // `kernel` lowered as the backend asks: what its code generator reads
  std::vector<CheckedAccess> checked_sites;  // debug mode: the checked accesses, by site number
  int error_param = -1;                      // debug mode: the error array's parameter
  PrintLayout prints;
  double typing_ms = 0, optimizing_ms = 0;  // what the typing and the optimizing steps took
};

// The whole pipeline. Throws the user's errors: TypeError and InvalidArgument from
// inference, the barrier rule and the backend's capabilities.
Specialized run_pipeline(const ir::Kernel& traced, const TypingRequest& request, BackendLowering how);

// The optimizing steps alone, on typed IR.
ir::Kernel optimize(const ir::Kernel& typed);

// The lowering steps alone: the optimized kernel lowered as `how` asks; without pack_scalars, the pack is empty.
PackedKernel lower_for_backend(const ir::Kernel& optimized, BackendLowering how);

// Whether each step's output is verified: always without NDEBUG, else when TACK_VERIFY=1.
bool verifying();

}  // namespace tack::passes
