// The argument pack of the CPU backend's chunk functions: what the runtime
// fills per launch (backends/cpu) and the generated code unpacks (codegen/llvm),
// in the kernel ABI both sides read.
#pragma once

#include "ir/ir.hpp"

#include <vector>

namespace tack::abi {

// 8-byte slots, in parameter order.
//   Array:     [data pointer, element count, extent 0, ..., extent rank-1]
//   Scalar:    [value bits] (ints sign/zero-extended, f32 bits in the low half, f64 bits)
//   Texture3D: [data pointer (f32), width, height, depth]
struct PackLayout {
  std::vector<int> first_slot;  // per parameter
  int slots = 0;
};
PackLayout pack_layout(const ir::Kernel& typed);

}  // namespace tack::abi
