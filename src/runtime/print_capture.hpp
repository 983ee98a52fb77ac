// The launch side of tack::lang::print: the hidden arrays of a printing variant
// (passes::lower_prints) are allocated and bound for each launch, then read back,
// sorted by work-item index and written to stderr. A printing launch waits for
// itself, so its lines appear before the call returns.
#pragma once

#include "runtime/backend.hpp"
#include "runtime/resolve_variant.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tack::runtime {

// Lines kept per launch: TACK_PRINT_LINES, else 4096. InvalidArgument when it is not a number of lines.
std::int64_t print_capacity();

class PrintCapture {
 public:
  // Binds the hidden arrays into call.args after the call's own arguments; does nothing for a variant that
  // does not print.
  PrintCapture(const CompiledVariant& v, ResolvedCall& call);
  bool active() const { return layout_.active(); }
  // How many arguments the launch passes: the kernel's parameters, hidden ones included.
  std::size_t arg_count() const { return arg_count_; }
  // Waits for the launch (by reading the arrays back) and writes its lines to stderr.
  void flush();

 private:
  const passes::PrintLayout& layout_;
  std::string kernel_;
  std::size_t arg_count_;
  std::int64_t capacity_ = 0;
  std::vector<std::unique_ptr<ArrayStorage>> arrays_;  // words, then the columns; bound by address
};

// The text a printed value takes: integers in decimal, floats as the shortest text that reads back to the same
// value ("nan", "inf", "-0"), bools as true/false. `bits` holds the value as lower_prints stored it.
std::string format_print_value(DType t, std::uint64_t bits);

}  // namespace tack::runtime
