// Which array parameters the CPU may give each thread a private copy of: where a kernel only ever atomic-adds into
// an array and never reads what an add returned (a histogram, k-means centre sums), each thread can add into a
// zeroed copy of its own with plain read-modify-writes and the copies be added into the array once, after the
// launch, as OpenMP array reductions and Kokkos' ScatterView do. The adds' order changes; atomic adds promise no
// order (docs/semantics.md), so the result rules hold.
#pragma once

#include "analysis/row_scatter.hpp"
#include "ir/ir.hpp"

#include <cstdint>
#include <vector>

namespace tack::analysis {

// By parameter: every access of the array is an atomic add or sub whose old value nothing reads, and there is at
// least one. Reads the traced IR as well as the typed (dtypes are not looked at), so a call can ask before typing.
// Only a parallel_for kernel's parameters qualify.
std::uint32_t add_only_params(const ir::Kernel& k);

// For a typed kernel whose arrays are proven distinct, given its plan_row_scatter(typed): the add-only parameters
// the CPU privatizes, of a dtype the launch combines (32- and 64-bit integers and floats), none where the row plan
// schedules the launch in colors of row blocks (its plain adds need that schedule, which runs a thread's range in
// many pieces).
std::vector<bool> plan_private_adds(const ir::Kernel& typed, const RowScatter& rows);

}  // namespace tack::analysis
