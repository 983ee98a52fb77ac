// A backend's compile recipe, carried by its row (src/api/backend_list.cpp):
// the lowering that ends the pipeline for it (passes/pipeline.hpp) and what
// makes the code its device compiles from the lowered kernel. resolve_variant,
// tack::inspect, precompile and the source-only targets all read the recipe,
// so a kernel takes one path to its code whoever asks.
#pragma once

#include "abi/c_source.hpp"
#include "abi/scalar_pack.hpp"
#include "passes/pipeline.hpp"
#include "runtime/devices/lazy_source.hpp"

namespace tack::runtime {

struct CompileRecipe {
  passes::BackendLowering lowering = {};  // none by default: the pipeline ends with the optimized kernel
  // The lowered kernel to the source the device compiles, without a device: a C-family dialect's generator
  // (codegen/), the IR text for the interpreter, which runs the IR itself. Null where the device's own compiler
  // emits from the lowered kernel (cpu: LLVM IR from its compiler plugin); Backend::source then shows it.
  Emitter emit = nullptr;
};

// The interpreter's emitter: the lowered kernel's IR text, its entry the kernel's name.
abi::CSource ir_text(const abi::PackedKernel& lowered);

}  // namespace tack::runtime
