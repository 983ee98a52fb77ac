// Lowers Print statements (tack::lang::print) to ordinary IR, so that every backend
// prints with the atomics and stores it already has. Each Print claims a record
// slot with an atomic add on a hidden u32 array and, when the slot is within the
// capacity, stores the work-item's flat index, the print site and its arguments.
//
// The hidden arrays are appended as the kernel's last parameters:
// - `words` (u32): [0] counts the prints attempted; record r occupies words
//   1 + r*W .. 1 + r*W + W-1: the flat index's low and high 32 bits, the site,
//   then every argument of 32 bits or fewer (bool and integers, wrapped to u32);
// - one array per other storage dtype the prints use (u64 for 64-bit integers,
//   f32, f64), record r at r*width .. r*width + width-1.
// The capacity in records is not in the code: the kernel derives it from the
// size of `words`, so the runtime sizes the arrays per launch (TACK_PRINT_LINES).
// Runs on typed IR, before optimization.
#pragma once

#include "abi/print_layout.hpp"
#include "ir/ir.hpp"

namespace tack::passes {

// The layout is the kernel ABI's (abi/print_layout.hpp): the runtime binds and reads the arrays.
using abi::PrintArg;
using abi::PrintColumn;
using abi::PrintLayout;
using abi::PrintSite;

struct PrintsLowered {
  ir::Kernel kernel;
  PrintLayout layout;
};

// A kernel without prints comes back unchanged, with an inactive layout.
PrintsLowered lower_prints(const ir::Kernel& typed);

}  // namespace tack::passes
