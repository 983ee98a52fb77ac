// The host side of scalar packs (reference: "Scalar arguments on the GPU"):
// the bytes each pack array of a packed kernel holds for one launch, taken from
// the launch's bound arguments. Shared by the GPU backends, which upload these
// bytes into the variant's pack buffers before each launch.
#pragma once

#include "abi/scalar_pack.hpp"
#include "runtime/devices/backend.hpp"

#include <cstddef>

namespace tack::runtime {

// Bytes of pack array `a` on the device: one element of a.dtype per slot.
std::size_t pack_array_bytes(const abi::PackArray& a);

// Writes pack array `a`'s values for this launch to `out` (pack_array_bytes(a)
// bytes), in slot order: scalars by their dtype (a bool as u8 0/1), extents and
// sizes as i64. `args` are the launch's arguments of the unpacked kernel.
void fill_pack_array(const abi::PackArray& a, const BoundArg* args, std::size_t arg_count, void* out);

}  // namespace tack::runtime
