// The C-family emitter's spelling of values: dtype names and suffixes, the
// unsigned type integer arithmetic wraps in, and exact integer and float literals.
#include "codegen/c_family.hpp"

#include "ir/check.hpp"
#include "ir/scalar_ops.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tack::codegen {

std::string CFamilyCodeGen::suffix(DType t) { return std::string(dtype_name(t)); }

std::string CFamilyCodeGen::cl_type_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "char";
    case DType::U8: return "uchar";
    case DType::I16: return "short";
    case DType::U16: return "ushort";
    case DType::I32: return "int";
    case DType::U32: return "uint";
    case DType::I64: return "long";
    case DType::U64: return "ulong";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  TACK_UNREACHABLE("unknown dtype");
}

DType CFamilyCodeGen::unsigned_bits(DType t) const { return dtype_bits(t) == 64 ? DType::U64 : DType::U32; }

std::string CFamilyCodeGen::wide_unsigned(DType t) const { return type_name(unsigned_bits(t)); }

std::string CFamilyCodeGen::literal_int(DType t, std::int64_t v) const {
  switch (t) {
    case DType::Bool: return v ? "true" : "false";
    case DType::I64:
      if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807" + i64_suffix() + " - 1)";
      return "(" + std::to_string(v) + i64_suffix() + ")";
    case DType::U64: return "(" + std::to_string(static_cast<std::uint64_t>(v)) + u64_suffix() + ")";
    case DType::I32:
      if (v == std::numeric_limits<std::int32_t>::min()) return "(-2147483647 - 1)";
      return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
    case DType::U32: return std::to_string(static_cast<std::uint32_t>(v)) + "u";
    default: return "((" + type_name(t) + ")" + (v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v)) + ")";
  }
}

std::string CFamilyCodeGen::literal(DType t, std::uint64_t bits) const {
  if (!is_float(t)) {
    std::int64_t v = ir::bits_to_int(t, bits);
    return literal_int(t, v);
  }
  double d = ir::bits_to_double(t, bits);
  if (std::isnan(d) || std::isinf(d)) return float_from_bits(t, bits);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", d);  // exact: a hexadecimal float literal
  std::string s = buf;
  if (t == DType::F32) s += "f";
  return d < 0 || std::signbit(d) ? "(" + s + ")" : s;
}

std::string CFamilyCodeGen::bits_literal_call(DType t, std::uint64_t bits, const char* f32_call,
                                              const char* f64_call, const char* f64_suffix) {
  char buf[64];
  if (t == DType::F32)
    std::snprintf(buf, sizeof buf, "%s(0x%08xu)", f32_call, static_cast<unsigned>(bits));
  else
    std::snprintf(buf, sizeof buf, "%s(0x%016llx%s)", f64_call, static_cast<unsigned long long>(bits), f64_suffix);
  return buf;
}

std::string CFamilyCodeGen::unfused_mul(DType, const std::string& a, const std::string& b) const {
  return "(" + a + " * " + b + ")";
}

}  // namespace tack::codegen
