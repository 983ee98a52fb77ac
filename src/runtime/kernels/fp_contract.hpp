// Whether a kernel's float products may contract into sums (docs/semantics.md): its
// KernelOptions::fp_contract, else TACK_FP_CONTRACT, else on. Decided once, when
// the kernel is made (C++ tack::kernel and Python @tack.kernel alike), and then
// carried by its IR (ir::Kernel::fp_contract), so it is in every variant's key.
#pragma once

#include <optional>

namespace tack::runtime {

// Throws InvalidArgument naming the variable when TACK_FP_CONTRACT is set
// (and `option` unset) to anything but a boolean word: a typo must not pick
// an arithmetic silently.
bool effective_fp_contract(std::optional<bool> option);

}  // namespace tack::runtime
