// Type inference: turns a traced kernel into typed IR for one call's argument
// dtypes and ranks, by the rules of docs/semantics.md.
#pragma once

#include "ir/ir.hpp"

#include <vector>

namespace tack::passes {

struct ParamType {
  DType dtype = DType::F32;
  int rank = 0;       // arrays only
  bool weak = false;  // scalars only: typed as a literal of dtype is (Python ints and floats)
};

// Returns the kernel with every expression Strong, explicit Casts where operand
// types differ, Var and Let types filled in, indices I64 and conditions Bool.
// Throws tack::TypeError (or InvalidArgument for a wrong rank) naming the kernel,
// the operation and the source line.
ir::Kernel infer_types(const ir::Kernel& traced, const std::vector<ParamType>& params);

}  // namespace tack::passes
