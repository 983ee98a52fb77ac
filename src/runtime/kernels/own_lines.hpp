// Errors name the lines of the kernel that was called. Two kernels with the same name
// and the same IR share one compiled variant (the IR hash leaves source locations
// out, so the code is compiled once), but a message raised while the second one runs
// must not name the first one's lines.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "runtime/kernels/signature.hpp"

namespace tack::runtime {

// Call inside a catch block for tack::Error raised while `impl` ran variant `v`, built
// for a twin kernel (v.locations_hash != impl.locations_hash()). Rethrows the same
// error class with every location of the twin's IR in its message replaced by the
// matching location of impl's own IR; rethrows the error unchanged if the two cannot
// be matched statement for statement.
[[noreturn]] void rethrow_with_own_lines(KernelImpl& impl, const Backend& backend, const Signature& sig,
                                         const CompiledVariant& v);

}  // namespace tack::runtime
