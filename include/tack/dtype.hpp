// The element types Tack kernels compute with, and their C++ spellings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tack {

// Bool is the type of comparisons, and an array dtype of one byte an element (NumPy's bool).
enum class DType : std::uint8_t { Bool, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

inline constexpr DType kNumericDTypes[] = {DType::I8,  DType::U8,  DType::I16, DType::U16, DType::I32,
                                           DType::U32, DType::I64, DType::U64, DType::F32, DType::F64};
// What arrays may hold: bool and the ten numeric dtypes.
inline constexpr DType kArrayDTypes[] = {DType::Bool, DType::I8,  DType::U8,  DType::I16, DType::U16, DType::I32,
                                         DType::U32,  DType::I64, DType::U64, DType::F32, DType::F64};

std::string_view dtype_name(DType t);
std::size_t dtype_size(DType t);
inline constexpr bool is_float(DType t) { return t == DType::F32 || t == DType::F64; }
inline constexpr bool is_integer(DType t) { return t != DType::Bool && !is_float(t); }
inline constexpr bool is_signed_int(DType t) {
  return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
}
inline constexpr bool is_unsigned_int(DType t) { return is_integer(t) && !is_signed_int(t); }
inline constexpr int dtype_bits(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::I8:
    case DType::U8: return 8;
    case DType::I16:
    case DType::U16: return 16;
    case DType::I32:
    case DType::U32:
    case DType::F32: return 32;
    default: return 64;
  }
}

template <class T>
struct dtype_of_t;
template <>
struct dtype_of_t<bool> {
  static constexpr DType value = DType::Bool;
};
template <>
struct dtype_of_t<std::int8_t> {
  static constexpr DType value = DType::I8;
};
template <>
struct dtype_of_t<std::uint8_t> {
  static constexpr DType value = DType::U8;
};
template <>
struct dtype_of_t<std::int16_t> {
  static constexpr DType value = DType::I16;
};
template <>
struct dtype_of_t<std::uint16_t> {
  static constexpr DType value = DType::U16;
};
template <>
struct dtype_of_t<std::int32_t> {
  static constexpr DType value = DType::I32;
};
template <>
struct dtype_of_t<std::uint32_t> {
  static constexpr DType value = DType::U32;
};
template <>
struct dtype_of_t<long> {
  static constexpr DType value = sizeof(long) == 8 ? DType::I64 : DType::I32;
};
template <>
struct dtype_of_t<unsigned long> {
  static constexpr DType value = sizeof(long) == 8 ? DType::U64 : DType::U32;
};
template <>
struct dtype_of_t<long long> {
  static constexpr DType value = DType::I64;
};
template <>
struct dtype_of_t<unsigned long long> {
  static constexpr DType value = DType::U64;
};
template <>
struct dtype_of_t<float> {
  static constexpr DType value = DType::F32;
};
template <>
struct dtype_of_t<double> {
  static constexpr DType value = DType::F64;
};
template <>
struct dtype_of_t<char> {
  static constexpr DType value = std::is_signed_v<char> ? DType::I8 : DType::U8;
};

// The dtype a C++ arithmetic type maps to (float -> F32, int -> I32, int64_t -> I64, ...).
template <class T>
inline constexpr DType dtype_of = dtype_of_t<std::remove_cvref_t<T>>::value;

template <class T>
concept Arithmetic = std::is_arithmetic_v<std::remove_cvref_t<T>>;

}  // namespace tack
