// Calls a generic function with the C++ type of a dtype: the one switch from
// DType to C++ types, for the scalar semantics and the host-side runtime alike.
#pragma once

#include "ir/check.hpp"

#include <tack/dtype.hpp>

#include <cstdint>

namespace tack::ir {

template <class F>
decltype(auto) with_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f(bool{});
    case DType::I8: return f(std::int8_t{});
    case DType::U8: return f(std::uint8_t{});
    case DType::I16: return f(std::int16_t{});
    case DType::U16: return f(std::uint16_t{});
    case DType::I32: return f(std::int32_t{});
    case DType::U32: return f(std::uint32_t{});
    case DType::I64: return f(std::int64_t{});
    case DType::U64: return f(std::uint64_t{});
    case DType::F32: return f(float{});
    case DType::F64: return f(double{});
  }
  TACK_UNREACHABLE("with_dtype: unknown dtype");
}

}  // namespace tack::ir
