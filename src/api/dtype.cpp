// The bodies of <tack/dtype.hpp>: the names and sizes of dtypes.
#include <tack/dtype.hpp>

namespace tack {
std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "i8";
    case DType::U8: return "u8";
    case DType::I16: return "i16";
    case DType::U16: return "u16";
    case DType::I32: return "i32";
    case DType::U32: return "u32";
    case DType::I64: return "i64";
    case DType::U64: return "u64";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
  }
  return "?";
}
std::size_t dtype_size(DType t) { return t == DType::Bool ? 1 : static_cast<std::size_t>(dtype_bits(t) / 8); }
}  // namespace tack
