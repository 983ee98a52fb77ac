// What a GPU backend builds a program from: the key that decides its code, the
// generator of its source (the row's emitter: CompileInput::source), its name in
// errors and whether its float products may contract (which picks CUDA's and
// HIP's compile options). They travel together from GpuBackend::compile through
// the build hook to each backend's compiler and disk-cache entry, so they are
// one parameter.
#pragma once

#include "runtime/devices/lazy_source.hpp"

#include <string>

namespace tack::runtime {

struct BuildRequest {
  const std::string& key;      // the text that decides the code, e.g. the typed IR
  const LazySource& generate;  // the source, asked for only when no cached binary serves
  const std::string& what;     // the program in errors ("kernel 'saxpy'")
  bool fp_contract;            // the kernel's ir::Kernel::fp_contract
};

}  // namespace tack::runtime
