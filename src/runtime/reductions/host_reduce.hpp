// Array::sum/min/max on the host: in place over host-addressable memory, split
// into a fixed number of blocks so the result does not depend on the thread count.
#pragma once

#include "ir/scalar_ops.hpp"

#include <tack/array.hpp>

#include <cstdint>

namespace tack::runtime {

class Backend;

using ReduceOp = tack::detail::ReduceOp;  // declared with Array, whose sum/min/max name it

// Reduces `count` elements of dtype `t` at `data`. Integers: the sum wraps in 64
// bits (i64 for signed, u64 for unsigned types, the result's dtype); floats: the
// sum accumulates in f64, min/max skip NaN unless every element is NaN; bool:
// any nonzero byte is true, the sum counts the true elements (I64, as NumPy's),
// min is "all", max is "any" (Bool). Returns the result as Bits of I64/U64
// (integers), F64 (floats) or as above, with its dtype in *result_dtype.
ir::Bits host_reduce(const Backend& backend, DType t, const void* data, std::int64_t count, ReduceOp op,
                     DType* result_dtype);

}  // namespace tack::runtime
