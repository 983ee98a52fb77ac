// Which adds of a run of adds into private copies (a block's consecutive Lets and such adds, which the CPU's gangs
// make lane by lane) add a whole record of one array into a record of another: `sums[8 * c + f] += points[8 * i +
// f]` for f = 0..7, k-means' update. A lane then adds its record as one short vector instead of field by field:
// each element gets the same add, from the same lane, as before.
#pragma once

#include "ir/ir.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tack::analysis {

struct RecordAdd {
  std::int64_t size = 0;             // fields per record, 2 to 16
  std::vector<std::size_t> fields;   // by field: the position in the statements of the add into it
  const ir::Load* source = nullptr;  // the read of field 0 of the source record (its index: the record's start)
};

// The record adds among stmts[first, first + count), a run whose adds `counts` says run lane by lane. A record
// add is `size` Add atomics into one array, one per field of the record at `size * x + f` (x the same value for
// all), each adding field f of one source record (a Load at `size * u + f`, u the same for all, of an array of the
// destination's dtype), and no other add of the run goes into that array.
std::vector<RecordAdd> record_adds(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count,
                                   const std::function<bool(const ir::Atomic*)>& counts);

}  // namespace tack::analysis
