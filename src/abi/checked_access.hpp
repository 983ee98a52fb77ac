// Debug mode's access sites: passes::bounds_checks numbers every checked access,
// the kernel records the first bad one by number, and the runtime turns the
// record back into an IndexError naming the array and the source line.
#pragma once

#include "ir/ir.hpp"

namespace tack::abi {

struct CheckedAccess {
  ir::ArrayRef array;
  ir::SourceLoc loc;
};

}  // namespace tack::abi
