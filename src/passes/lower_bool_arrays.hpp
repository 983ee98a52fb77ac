// Bool arrays as byte arrays. NumPy's bool arrays hold one byte per element, and
// Tack's stores exactly 0 or 1 into them; every code generator and the
// interpreter know u8 memory, so this pass rewrites each bool array (parameter
// or workgroup shared array) to u8 rather than teaching each of them a bool
// element type:
// - a load becomes `u8 load != 0`, so a byte other than 0 and 1 written by the
//   host (through a uint8 view) reads as true, as NumPy reads it;
// - a store takes the bool that inference converted the value to (`x != 0`, so
//   NaN is true and -0.0 false, as Python's bool() does) and stores it as u8 0/1.
// Atomics on bool arrays never reach here: inference refuses them. Runs on
// typed IR, right after inference; the call's signature keeps the bool dtype,
// so a bool array and a u8 array are still different variants.
#pragma once

#include "ir/ir.hpp"

namespace tack::passes {

// A kernel without bool arrays comes back unchanged.
ir::Kernel lower_bool_arrays(const ir::Kernel& typed);

}  // namespace tack::passes
