// The launch side of tack::lang::print: the hidden arrays of a printing variant
// (passes::lower_prints) are allocated and bound for each launch; the launch
// returns at once, as any launch does, and at the next wait (Device::synchronize,
// tack::sync, sync_async, a read or reduction of an array, share()) the arrays are
// read back, sorted by work-item index and written to stderr, launch by launch.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/kernels/resolve_variant.hpp"

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
  PrintCapture(std::shared_ptr<const CompiledVariant> v, ResolvedCall& call);
  bool active() const { return variant_->prints.active(); }
  // How many arguments the launch passes: the kernel's parameters, hidden ones included.
  std::size_t arg_count() const { return arg_count_; }
  // Waits for the launch (by reading the arrays back) and writes its lines to stderr.
  void flush();

 private:
  std::shared_ptr<const CompiledVariant> variant_;  // holds the layout, and the code, until the lines are out
  std::size_t arg_count_;
  std::int64_t capacity_ = 0;
  std::vector<std::unique_ptr<ArrayStorage>> arrays_;  // words, then the columns; bound by address
};

// Queues a launch's lines for the next wait.
void defer_prints(PrintCapture capture);
// Writes the lines of every launch queued so far, in launch order, waiting for those launches. Called by every
// wait before it waits. A launch error met while reading one launch's lines is rethrown once the other launches'
// lines are out.
void flush_prints();

// The text a printed value takes: integers in decimal, floats as the shortest text that reads back to the same
// value ("nan", "inf", "-0"), bools as true/false. `bits` holds the value as lower_prints stored it.
std::string format_print_value(DType t, std::uint64_t bits);

}  // namespace tack::runtime
