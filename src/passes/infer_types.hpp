// Type inference: turns a traced kernel into typed IR for one call's argument
// dtypes and ranks, by the rules of docs/semantics.md.
#pragma once

#include "ir/ir.hpp"

#include <string>
#include <vector>

namespace tack::passes {

struct ParamType {
  DType dtype = DType::F32;
  int rank = 0;       // arrays only
  bool weak = false;  // scalars only: typed as a literal of dtype is (Python ints and floats)
};

// What the device computes, for the refusals only typing can word: it knows which
// operation made a value f64. Everything else a backend lacks is refused by
// passes::check_capabilities on the typed kernel.
struct DeviceLimits {
  bool f64 = true;
  std::string backend;  // its name, for messages
};

// Returns the kernel with every expression Strong, explicit Casts where operand
// types differ, Var and Let types filled in, indices I64 and conditions Bool.
// True division (TrueDiv) is lowered to Div, on f64 Casts of integer operands.
// Throws tack::TypeError (InvalidArgument for a wrong rank, IndexError for a shape
// dimension beyond it) naming the kernel, the operation and the source line.
ir::Kernel infer_types(const ir::Kernel& traced, const std::vector<ParamType>& params, const DeviceLimits& device = {});

}  // namespace tack::passes
