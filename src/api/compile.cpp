// The bodies of <tack/compile.hpp>: tack::precompile and the process's
// compile statistics, over the runtime's (src/runtime/kernels/).
#include "runtime/kernels/compile_report.hpp"
#include "runtime/kernels/precompile.hpp"

#include <tack/compile.hpp>

namespace tack {

void precompile(const Device& device, std::span<const PrecompileRequest> requests, int threads) {
  runtime::precompile_all(runtime::precompile_backend(device), requests, threads);
}

CompileStats compile_stats() { return runtime::compile_stats_snapshot(); }

void reset_compile_stats() { runtime::clear_compile_stats(); }

}  // namespace tack
