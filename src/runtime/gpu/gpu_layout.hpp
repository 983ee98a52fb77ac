// What every GPU backend's variant holds beside its compiled code (reference:
// "Scalar arguments on the GPU"): the scalar-pack layout and the order in
// which the packed kernel takes its buffers, and the per-dispatch upload of
// the pack arrays. GpuBackend (cuda, hip, level_zero, opencl) and Metal bind
// their launches from this.
#pragma once

#include "abi/scalar_pack.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/gpu/gpu_scalar_pack.hpp"

#include <cstddef>
#include <vector>

namespace tack::runtime {

struct GpuLayout {
  abi::ScalarPack pack;
  // The packed kernel's buffer parameters in order: an index below the call's
  // argument count is that argument (an array or a texture), else -1 - the
  // pack array. The kernel's last parameter, the 64-bit count, follows them.
  std::vector<int> buffer_args;

  static GpuLayout of(const ir::Kernel& typed, const abi::PackedKernel& packed);

  // This launch's values of every pack array, in order: write(a, bytes, size)
  // uploads pack array a. `scratch` is the caller's, reused between launches
  // (held under the variant's dispatch lock).
  template <class Write>
  void write_packs(const Launch& l, std::vector<unsigned char>& scratch, Write&& write) const {
    for (std::size_t a = 0; a < pack.arrays.size(); ++a) {
      scratch.resize(pack_array_bytes(pack.arrays[a]));
      fill_pack_array(pack.arrays[a], l.args, l.arg_count, scratch.data());
      write(a, scratch.data(), scratch.size());
    }
  }
};

}  // namespace tack::runtime
