// The buffer order of packed GPU kernels.
#include "runtime/gpu/gpu_layout.hpp"

#include "ir/check.hpp"

namespace tack::runtime {

GpuLayout GpuLayout::of(const ir::Kernel& typed, const abi::PackedKernel& packed) {
  GpuLayout out;
  out.pack = packed.pack;
  const std::size_t original = typed.params.size();
  for (std::size_t i = 0; i < packed.kernel.params.size(); ++i) {
    const ir::Param& p = packed.kernel.params[i];
    if (p.kind == ir::ParamKind::Scalar) continue;
    if (i < original) {
      out.buffer_args.push_back(static_cast<int>(i));
      continue;
    }
    int which = -1;
    for (std::size_t a = 0; a < out.pack.arrays.size(); ++a)
      if (out.pack.arrays[a].param == static_cast<int>(i)) which = static_cast<int>(a);
    TACK_CHECK(p.scalar_pack && which >= 0);
    out.buffer_args.push_back(-1 - which);
  }
  return out;
}

}  // namespace tack::runtime
