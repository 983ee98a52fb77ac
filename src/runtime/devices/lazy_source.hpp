// A kernel's source, made only when asked: the emitter its backend's row names
// and the lowered kernel that emitter reads. resolve_variant hands it to
// Backend::compile (CompileInput::source), and a GPU backend on to its build
// (BuildRequest::generate), so a binary the disk cache serves costs no code
// generation, and the source is made by the emitter itself, not by a copy of
// the pipeline in each backend.
#pragma once

#include "abi/c_source.hpp"
#include "abi/scalar_pack.hpp"

namespace tack::runtime {

// A lowered kernel to the source its device compiles (codegen's generate_cuda, ...).
using Emitter = abi::CSource (*)(const abi::PackedKernel& lowered);

struct LazySource {
  Emitter emit = nullptr;  // null where the row has none (cpu: the device's own compiler emits)
  const abi::PackedKernel* lowered = nullptr;

  abi::CSource operator()() const { return emit(*lowered); }
};

}  // namespace tack::runtime
