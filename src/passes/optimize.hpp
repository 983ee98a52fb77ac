// The optimizer: the fixed sequence of IR passes between type inference and lowering.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// Runs simplify, cse, simplify again and dce on a typed kernel. Verifies the input
// and the result of every pass in builds without NDEBUG, or when TACK_VERIFY=1.
ir::Kernel optimize(const ir::Kernel& k);

// Whether passes verify their output: always without NDEBUG, else when TACK_VERIFY=1.
bool verifying();

}  // namespace tack::passes
