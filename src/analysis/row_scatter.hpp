// Which atomic adds the CPU runs as plain read-modify-writes, and the schedule that makes that safe: where every
// access of a float array is an atomic add or sub whose outermost subscript is the launch's outermost index plus
// a constant (the scatter of a stencil's adjoint, a deposit into neighbouring rows), work-items on launch rows
// more than `span` apart never reach one element, so the launch runs in blocks of at least `span` rows, in two
// colors (every other block at once, then the rest), and the adds need no atomics (docs/cpu-threading.md).
#pragma once

#include "ir/ir.hpp"

#include <cstdint>
#include <vector>

namespace tack::analysis {

struct RowScatter {
  std::vector<bool> plain;  // by parameter: its atomic adds run as plain read-modify-writes
  // How many launch rows two blocks running at once must be apart; -1 where no atomic runs plainly (the launch
  // schedules as any other), 0 where each work-item adds only into its own launch row's elements.
  std::int64_t span = -1;
};

// For a typed kernel whose arrays are proven distinct (with aliasing arrays, another parameter may read what
// an add writes): the plain atomics and their span.
RowScatter plan_row_scatter(const ir::Kernel& typed);

}  // namespace tack::analysis
