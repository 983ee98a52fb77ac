// The reference interpreter of typed Tack IR: the semantic truth every backend is tested against.
#pragma once

#include "abi/group_size.hpp"
#include "ir/ir.hpp"
#include "ir/scalar_ops.hpp"

#include <array>
#include <cstdint>
#include <span>

namespace tack::interp {

inline constexpr std::int64_t kGroupSize = abi::kGroupSize;  // work-items per group, on every backend
inline constexpr int kMaxLanes = 256;                        // iterations the interpreter advances together

struct ArrayArg {
  void* data = nullptr;
  DType dtype = DType::F32;
  std::int64_t size = 0;
  std::array<std::int64_t, 4> shape{};
  int rank = 0;
};

// Texel (x, y, z) is data[(z * height + y) * width + x].
struct TextureArg {
  const float* data = nullptr;
  std::int64_t width = 0, height = 0, depth = 0;
};

// One kernel argument; which member is used depends on kind (a scalar is Bits in its dtype's canonical form).
struct Arg {
  ir::ParamKind kind = ir::ParamKind::Array;
  ArrayArg array;
  ir::Bits scalar = 0;
  TextureArg texture;
};

// Runs flat iterations [begin, end) of a Parallel kernel, or groups [begin, end) of a Workgroup kernel.
// The kernel must be typed. The launch extents (kernel.dims) are evaluated here with eval_host.
// Throws tack::IndexError for an out-of-range access and tack::InvalidArgument for a barrier or group
// reduction that only part of a group reaches. `lanes` (1 to kMaxLanes) is how many iterations of a
// Parallel launch advance in lock step; a workgroup is always one group of kGroupSize lanes.
void run(const ir::Kernel& kernel, std::span<const Arg> args, std::int64_t begin, std::int64_t end,
         int lanes = kMaxLanes);

// eval_host (interp/eval_host.hpp) over the interpreter's arguments.
ir::Bits eval_host(const ir::Expr& e, std::span<const Arg> args);

}  // namespace tack::interp
