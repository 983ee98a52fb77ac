// Element access to kernel arrays and shared arrays, with the interpreter's bounds check.
#include "interp/memory.hpp"

#include <tack/error.hpp>

#include <cstring>
#include <string>

namespace tack::interp {

ArrayView array_view(Context& ctx, ir::ArrayRef a) {
  if (a.space == ir::ArrayRef::Space::Local) {
    TACK_CHECK(a.index >= 0 && static_cast<std::size_t>(a.index) < ctx.kernel.locals.size());
    const ir::LocalArray& l = ctx.kernel.locals[static_cast<std::size_t>(a.index)];
    return {nullptr, l.dtype, l.count};  // no data: each lane's elements are ctx.locals'
  }
  if (a.space == ir::ArrayRef::Space::Shared) {
    TACK_CHECK(ctx.workgroup && a.index >= 0 && static_cast<std::size_t>(a.index) < ctx.kernel.shared.size());
    const ir::SharedArray& s = ctx.kernel.shared[static_cast<std::size_t>(a.index)];
    return {ctx.shared[static_cast<std::size_t>(a.index)].data(), s.dtype, s.count};
  }
  const Arg& arg = ctx.arg(a.index);
  TACK_CHECK(arg.kind == ir::ParamKind::Array);
  // The typed kernel's dtype, which is the argument's except for a bool array: that is u8 memory
  // to typed IR (passes/lower_bool_arrays.hpp), and the reference runs the IR the generators see.
  return {arg.array.data, ctx.kernel.params[static_cast<std::size_t>(a.index)].dtype, arg.array.size};
}

void check_index(const Context& ctx, ir::ArrayRef a, const ArrayView& v, std::int64_t i) {
  if (i >= 0 && i < v.size) return;
  std::string what = a.space == ir::ArrayRef::Space::Shared  ? "shared array "
                     : a.space == ir::ArrayRef::Space::Local ? "local array "
                                                             : "argument ";
  std::string msg = "kernel '" + ctx.kernel.name + "': index " + std::to_string(i) + " is out of range for " + what +
                    std::to_string(a.index) + " (extent " + std::to_string(v.size) + ")";
  std::string where = ctx.loc ? ctx.loc->str() : "";
  if (!where.empty()) msg += " at " + where;
  throw IndexError(msg);
}

ir::Bits& local_element(Context& ctx, ir::ArrayRef a, std::int64_t i, int lane) {
  return ctx.locals[static_cast<std::size_t>(a.index)]
                   [static_cast<std::size_t>(i) * kMaxLanes + static_cast<std::size_t>(lane)];
}

namespace {
template <class T>
ir::Bits read(const void* data, std::int64_t i) {
  T x;
  std::memcpy(&x, static_cast<const char*>(data) + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return static_cast<ir::Bits>(x);  // raw bits, zero-extended; load_element normalizes them
}
template <class T>
void write(void* data, std::int64_t i, ir::Bits b) {
  T x = static_cast<T>(b);
  std::memcpy(static_cast<char*>(data) + i * static_cast<std::int64_t>(sizeof(T)), &x, sizeof(T));
}
}  // namespace

ir::Bits load_element(const ArrayView& v, std::int64_t i) {
  ir::Bits raw = 0;
  switch (dtype_size(v.dtype)) {
    case 1: raw = read<std::uint8_t>(v.data, i); break;
    case 2: raw = read<std::uint16_t>(v.data, i); break;
    case 4: raw = read<std::uint32_t>(v.data, i); break;
    default: raw = read<std::uint64_t>(v.data, i); break;
  }
  return ir::normalize(v.dtype, raw);
}

void store_element(const ArrayView& v, std::int64_t i, ir::Bits b) {
  switch (dtype_size(v.dtype)) {
    case 1: write<std::uint8_t>(v.data, i, v.dtype == DType::Bool ? (b != 0) : b); break;
    case 2: write<std::uint16_t>(v.data, i, b); break;
    case 4: write<std::uint32_t>(v.data, i, b); break;
    default: write<std::uint64_t>(v.data, i, b); break;
  }
}

}  // namespace tack::interp
