// Scalar arguments on the GPU (reference: "Scalar arguments on the GPU"): every
// value the host passes by value is read from a small array, one array per
// dtype. These types describe that layout; passes::pack_scalars builds it, the
// code generators read it, and the runtime fills the arrays at each launch, so
// it sits below all three.
#pragma once

#include "ir/ir.hpp"

#include <cstdint>
#include <vector>

namespace tack::abi {

// One value of a pack array and where the host takes it from.
struct PackSlot {
  enum class Source : std::uint8_t {
    Scalar,         // scalar parameter `param` (a bool is stored as a u8 0 or 1)
    ArrayExtent,    // array `param`: dim >= 0 is shape(dim), ir::ArrayDim::kSize its element count
    TextureExtent,  // texture `param`: dim 0, 1, 2 are width, height, depth
  };
  Source source = Source::Scalar;
  int param = 0;
  int dim = 0;
  int let = -1;  // the Let of the packed kernel that holds the value
};

// One pack array: a rank-1 Array parameter of the packed kernel (Param::scalar_pack).
struct PackArray {
  DType dtype = DType::I64;  // storage dtype; a bool scalar is stored in the u8 pack
  int param = 0;             // its index in the packed kernel's parameters
  std::vector<PackSlot> slots;
};

struct ScalarPack {
  std::vector<PackArray> arrays;  // in parameter order
  // The slot holding a value, or nullptr when the kernel never reads it.
  const PackSlot* find(PackSlot::Source source, int param, int dim) const;
};

// The packed kernel keeps every original parameter at its index (scalar ones are
// no longer read) and appends the pack arrays. The body starts with one Let per
// packed value, `let = load pack[slot]`, and every ScalarParam and ArrayDim, in
// the body and in the launch dims but the first (the host resolves the launch
// count; only the inner extents decompose the flat index on the device), reads
// those Lets instead. The dims therefore
// refer to Lets of the body: a generator emits those leading Lets before it
// evaluates the dims, so the packed kernel is input for code generators only,
// not for the verifier or the interpreter. The launch range is resolved from the
// unpacked kernel on the host.
struct PackedKernel {
  ir::Kernel kernel;
  ScalarPack pack;
  int leading_lets = 0;  // how many statements at the top of the body are pack loads
};

}  // namespace tack::abi
