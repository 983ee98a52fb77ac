// Filling scalar packs from bound arguments.
#include "runtime/gpu/gpu_scalar_pack.hpp"

#include "ir/check.hpp"

#include <cstring>

namespace tack::runtime {

std::size_t pack_array_bytes(const abi::PackArray& a) { return a.slots.size() * dtype_size(a.dtype); }

void fill_pack_array(const abi::PackArray& a, const BoundArg* args, std::size_t arg_count, void* out) {
  auto* bytes = static_cast<unsigned char*>(out);
  const std::size_t width = dtype_size(a.dtype);
  for (std::size_t s = 0; s < a.slots.size(); ++s) {
    const abi::PackSlot& slot = a.slots[s];
    TACK_CHECK(slot.param >= 0 && static_cast<std::size_t>(slot.param) < arg_count);
    const BoundArg& b = args[slot.param];
    std::uint64_t value = 0;
    switch (slot.source) {
      case abi::PackSlot::Source::Scalar:
        // BoundArg::scalar holds ir::Bits: integers sign- or zero-extended to 64
        // bits, floats as their bit pattern in the low bits. The low `width`
        // bytes are therefore the value in its own dtype; a bool is 0 or 1.
        value = a.dtype == DType::Bool ? (b.scalar != 0 ? 1 : 0) : b.scalar;
        break;
      case abi::PackSlot::Source::ArrayExtent:
        TACK_CHECK(b.array && a.dtype == DType::I64);
        value = static_cast<std::uint64_t>(
            slot.dim == ir::ArrayDim::kSize ? b.array->size : b.array->shape.at(static_cast<std::size_t>(slot.dim)));
        break;
      case abi::PackSlot::Source::TextureExtent:
        TACK_CHECK(b.texture && a.dtype == DType::I64 && slot.dim >= 0 && slot.dim < 3);
        value = static_cast<std::uint64_t>(b.texture->shape[static_cast<std::size_t>(slot.dim)]);
        break;
    }
    // Narrow through the fixed-width type, so the stored bytes do not depend on the host's byte order.
    unsigned char* dst = bytes + s * width;
    switch (width) {
      case 1: {
        auto v = static_cast<std::uint8_t>(value);
        std::memcpy(dst, &v, 1);
        break;
      }
      case 2: {
        auto v = static_cast<std::uint16_t>(value);
        std::memcpy(dst, &v, 2);
        break;
      }
      case 4: {
        auto v = static_cast<std::uint32_t>(value);
        std::memcpy(dst, &v, 4);
        break;
      }
      default: std::memcpy(dst, &value, 8); break;
    }
  }
}

}  // namespace tack::runtime
