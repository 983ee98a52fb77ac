// Options of one kernel, fixed when it is made (tack::kernel(name, options, fn);
// docs/language.md, "Kernel options"). Each changes the code a kernel compiles
// to, so each is part of every variant's key.
#pragma once

#include <optional>

namespace tack {

struct KernelOptions {
  // Whether a float product may fuse into the sum of the same expression
  // (docs/semantics.md, contraction). false: never, on any backend, so kernels of
  // + - * /, sqrt, comparisons and conversions give the same bits on every
  // backend that runs them; true: as §4 allows; unset: the TACK_FP_CONTRACT
  // environment variable, read when the kernel is made, else true.
  // tack::lang::fma() fuses either way.
  std::optional<bool> fp_contract;
};

}  // namespace tack
