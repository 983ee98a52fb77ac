// Debug mode's checked accesses (docs/semantics.md): every load, store and atomic of an
// array is guarded by its extent. Out of range, a store or atomic is skipped and
// a load gives 0, and the first bad access is recorded in an error array that
// the pass appends as the kernel's last parameter (i32, 3 elements: the access
// site + 1, then the index's low and high 32 bits). The runtime zeroes it before
// the launch and turns a record into tack::IndexError naming the kernel, the
// array, the index, its extent and the source line. Runs on typed IR before
// optimization, so that accesses whose value is unused are checked too.
#pragma once

#include "abi/checked_access.hpp"
#include "ir/ir.hpp"

#include <vector>

namespace tack::passes {

using abi::CheckedAccess;  // the runtime reads the sites too (abi/checked_access.hpp)

struct BoundsChecked {
  ir::Kernel kernel;
  std::vector<CheckedAccess> sites;  // by site number
  int error_param = -1;              // the appended error array's parameter index
};

BoundsChecked bounds_checks(const ir::Kernel& typed);

}  // namespace tack::passes
