// The inspect golden test: what tack::inspect shows for every kernel of the
// compile-check corpus on every backend, compared with checked-in files.
#pragma once

#include "ir/ir.hpp"

#include <vector>

namespace tack::compile_checks {

// Renders every kernel on every backend and compares each backend's text with
// tests/golden/inspect/<backend>.txt (or rewrites them under TACK_UPDATE_GOLDEN=1).
// Returns the exit status: 0 when every file matches (or was rewritten), 1 otherwise.
int run_inspect_golden(std::vector<ir::Kernel> kernels);

}  // namespace tack::compile_checks
