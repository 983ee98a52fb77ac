// NumPy-like dtype promotion with weak literals.
#include "passes/promote.hpp"

namespace tack::passes {
namespace {
DType signed_of_bits(int bits) {
  switch (bits) {
    case 8: return DType::I8;
    case 16: return DType::I16;
    case 32: return DType::I32;
    default: return DType::I64;
  }
}
}  // namespace

std::optional<DType> promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_float(a) && is_float(b)) return dtype_bits(a) >= dtype_bits(b) ? a : b;
  if (is_float(a)) return a;
  if (is_float(b)) return b;
  if (is_signed_int(a) == is_signed_int(b)) return dtype_bits(a) >= dtype_bits(b) ? a : b;
  DType s = is_signed_int(a) ? a : b;
  DType u = is_signed_int(a) ? b : a;
  if (dtype_bits(s) > dtype_bits(u)) return s;
  if (dtype_bits(u) < 64) return signed_of_bits(dtype_bits(u) * 2);
  return std::nullopt;
}

std::optional<ir::Type> join(ir::Type a, ir::Type b) {
  if (a.is_unknown()) return b;
  if (b.is_unknown()) return a;
  if (a.is_strong() && b.is_strong()) {
    auto t = promote(a.dtype, b.dtype);
    if (!t) return std::nullopt;
    return ir::Type::strong(*t);
  }
  if (a.is_weak() && b.is_weak()) {
    auto t = promote(a.dtype, b.dtype);
    if (!t) return std::nullopt;
    return ir::Type::weak(*t);
  }
  const ir::Type& strong = a.is_strong() ? a : b;
  const ir::Type& weak = a.is_strong() ? b : a;
  if (is_float(weak.dtype) && !is_float(strong.dtype)) return ir::Type::strong(DType::F32);
  if (strong.dtype == DType::Bool) return ir::Type::strong(weak.dtype);
  return strong;
}

}  // namespace tack::passes
