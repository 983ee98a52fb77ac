// The fuzzer's differentiation mode (tack_fuzz --autodiff; ctest fuzz.autodiff): random float kernels from the
// generator's differentiable subset, their adjoint against their tangent kernel (the dot-product test) and
// against central differences of the kernel, on interp, cpu and opencl (tests/fuzz/README.md).
#pragma once

#include <cstdint>

namespace tack::fuzz {

// Checks seeds start .. start + count - 1; prints each failure's kernel as C++. Returns the process's exit
// status: 0 when every conclusive check agreed and enough were conclusive, 1 otherwise, 77 without interp.
int run_autodiff(std::int64_t start, std::int64_t count, bool print);

}  // namespace tack::fuzz
