// The verifier of typed Tack IR: every rule of ir.hpp and ops.def, checked in one walk.
#pragma once

#include "ir/ir.hpp"

#include <string>

namespace tack::ir {

// Aborts, printing the offending node, when the typed kernel `k` breaks a rule of
// Tack IR. Passes hand each other IR that must verify, so a failure here is a bug
// in Tack (in the pass that ran last), never the user's mistake.
void verify(const Kernel& k);

// The same checks without aborting: false, with the message in *why when given.
bool verify_ok(const Kernel& k, std::string* why = nullptr);

}  // namespace tack::ir
