// Reading a kernel's contraction mode: the option, else TACK_FP_CONTRACT.
#include "runtime/kernels/fp_contract.hpp"

#include "support/env.hpp"

#include <tack/error.hpp>

#include <optional>
#include <string>

namespace tack::runtime {

bool effective_fp_contract(std::optional<bool> option) {
  if (option) return *option;
  // Read at every kernel made, not once per process: a program (or test) may
  // set it between kernels, and making a kernel is far from any hot path.
  const std::optional<std::string> value = support::env_text("TACK_FP_CONTRACT");
  if (!value) return true;
  // Strict, unlike a flag: a typo must not silently keep contraction on.
  if (const std::optional<bool> on = support::parse_env_bool(value->c_str())) return *on;
  throw InvalidArgument("TACK_FP_CONTRACT='" + *value +
                        "' is neither on nor off: write 0, off, false or no to forbid float contraction "
                        "(the same bits on every backend), 1, on, true or yes (or leave it unset) to allow it "
                        "as docs/semantics.md describes");
}

}  // namespace tack::runtime
