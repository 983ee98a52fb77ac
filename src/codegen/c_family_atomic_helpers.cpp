// The C-family emitter's atomic helpers: compare-and-swap loops for the atomic
// operations a dialect lacks natively, and 8- and 16-bit atomics on their
// containing 32-bit word. Each is a raw-string C template.
#include "codegen/c_family.hpp"

#include "codegen/c_template.hpp"
#include "ir/check.hpp"

namespace tack::codegen {

namespace {

// f(cur, v) -> next, retried until the word still holds what was read.
constexpr std::string_view kCasLoop = R"(${Q} ${T} ${name}(${P} p, ${T} v) {
  ${A} w = (${A})p;
  ${U} old = ${load};
  for (;;) {
    ${T} cur = ${from};
    ${T} next = ${combine};
    ${U} desired = ${to};
    ${step}
  }
}
)";

// The element's bits within its word change; the rest of the word is kept (GPUs are little-endian).
constexpr std::string_view kSubwordAtomic = R"(${Q} ${T} ${name}(${P} base, ${I64} index, ${T} v${expected}) {
  const ${I64} byte = index * ${size};
  ${W} w = (${W})((${bytes_ptr})base + (byte - (byte & 3)));
  const ${U} shift = (${U})(byte & 3) * 8u;
  const ${U} mask = ${mask} << shift;
  ${U} old = ${load};
  for (;;) {
    const ${T} cur = (${T})(${UT})((old & mask) >> shift);
${cas_check}    const ${T} next = ${combine};
    const ${U} desired = (old & ~mask) | (((${U})(${UT})next << shift) & mask);
    ${step}
  }
}
)";

}  // namespace

std::string CFamilyCodeGen::cas_loop_helper(const std::string& base_name, DType t, const std::string& combine) {
  const std::string name = base_name + (atomic_on_shared_ ? "_shared" : "");
  return helper(name, [&] {
    DType ut = unsigned_bits(t);
    std::string T = type_name(t), U = type_name(ut);
    return fill_template(kCasLoop, {{"Q", helper_qualifier()},
                                    {"T", T},
                                    {"U", U},
                                    {"name", name},
                                    {"P", global_pointer(t, false)},
                                    {"A", atomic_bits_pointer(ut)},
                                    {"load", atomic_load_bits(ut, "w")},
                                    {"from", is_float(t) ? float_of_bits(t, "old") : "(" + T + ")old"},
                                    {"combine", combine},
                                    {"to", is_float(t) ? bits_of(t, "next") : "(" + U + ")next"},
                                    {"step", cas_step(ut, "w", "old", "desired", "cur")}});
  });
}

// 8- and 16-bit atomics: no GPU language has them, so the containing 32-bit word is updated with a
// compare-and-swap loop that changes only the element's bits (GPUs are little-endian). Buffers and shared
// arrays are allocated in whole words, so the word never reaches past the allocation.
std::string CFamilyCodeGen::subword_atomic(ir::AtomicOp op, DType t, const std::string& base, const std::string& index,
                                           const std::string& v, const std::string& c) {
  const std::string name =
      std::string("tack_atomic_") + ir::atomic_name(op) + "_" + suffix(t) + (atomic_on_shared_ ? "_shared" : "");
  const bool is_cas = op == ir::AtomicOp::Cas;
  helper(name, [&] {
    const std::string T = type_name(t), U = type_name(DType::U32);
    std::string combine;
    switch (op) {
      case ir::AtomicOp::Add: combine = "(" + T + ")((" + U + ")cur + (" + U + ")v)"; break;
      case ir::AtomicOp::Sub: combine = "(" + T + ")((" + U + ")cur - (" + U + ")v)"; break;
      case ir::AtomicOp::And: combine = "(" + T + ")(cur & v)"; break;
      case ir::AtomicOp::Or: combine = "(" + T + ")(cur | v)"; break;
      case ir::AtomicOp::Xor: combine = "(" + T + ")(cur ^ v)"; break;
      case ir::AtomicOp::Min: combine = min_max_helper(ir::OpCode::Min, t) + "(cur, v)"; break;
      case ir::AtomicOp::Max: combine = min_max_helper(ir::OpCode::Max, t) + "(cur, v)"; break;
      case ir::AtomicOp::Exchange:
      case ir::AtomicOp::Cas: combine = "v"; break;
    }
    const int size = static_cast<int>(dtype_size(t));
    return fill_template(kSubwordAtomic,
                         {{"Q", helper_qualifier()},
                          {"T", T},
                          {"U", U},
                          {"I64", type_name(DType::I64)},
                          {"UT", type_name(is_signed_int(t) ? (dtype_bits(t) == 8 ? DType::U8 : DType::U16) : t)},
                          {"W", atomic_bits_pointer(DType::U32)},
                          {"bytes_ptr", global_pointer(DType::U8, false)},
                          {"name", name},
                          {"P", global_pointer(t, false)},
                          {"expected", is_cas ? ", " + T + " expected" : ""},
                          {"size", std::to_string(size)},
                          {"mask", size == 1 ? "0xFFu" : "0xFFFFu"},
                          {"load", atomic_load_bits(DType::U32, "w")},
                          {"cas_check", is_cas ? "    if (cur != expected) return cur;\n" : ""},
                          {"combine", combine},
                          {"step", cas_step(DType::U32, "w", "old", "desired", "cur")}});
  });
  return name + "(" + base + ", " + index + ", " + v + (is_cas ? ", " + c : "") + ")";
}

}  // namespace tack::codegen
