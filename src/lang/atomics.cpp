// Atomic read-modify-write statements; each returns the element's old value.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang {
namespace {
Value atomic(ir::AtomicOp op, const ArrayBase& a, const Located& index, const Value& v, const Value* expected) {
  auto& ctx = detail::TraceContext::current("atomic");
  auto loc = detail::to_loc(index.loc);
  ctx.require_body("an atomic", loc);
  if (a.space() == ArraySpace::Local)
    ctx.fail(loc, std::string("atomic_") + ir::atomic_name(op) +
                      " on a local array: a local array belongs to one work-item, so nothing races on it; "
                      "read and assign its elements instead");
  ir::ArrayRef ref{a.space() == ArraySpace::Param ? ir::ArrayRef::Space::Param : ir::ArrayRef::Space::Shared,
                   a.index()};
  int result = ctx.new_let(loc);
  ctx.emit(ir::Atomic::make(op, ref, ir::Expr(index.value.expr()), 0, ir::Expr(v.expr()),
                            expected ? ir::Expr(expected->expr()) : ir::Expr(), result, loc));
  return Value(ir::LetRef::make(ir::Type::unknown(), result).ptr());
}
}  // namespace

Value atomic_add(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::Add, a, i, v, nullptr); }
Value atomic_sub(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::Sub, a, i, v, nullptr); }
Value atomic_min(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::Min, a, i, v, nullptr); }
Value atomic_max(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::Max, a, i, v, nullptr); }
Value atomic_and(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::And, a, i, v, nullptr); }
Value atomic_or(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::Or, a, i, v, nullptr); }
Value atomic_xor(const ArrayBase& a, Located i, const Value& v) { return atomic(ir::AtomicOp::Xor, a, i, v, nullptr); }
Value atomic_exchange(const ArrayBase& a, Located i, const Value& v) {
  return atomic(ir::AtomicOp::Exchange, a, i, v, nullptr);
}
Value atomic_cas(const ArrayBase& a, Located i, const Value& expected, const Value& v) {
  return atomic(ir::AtomicOp::Cas, a, i, v, &expected);
}

}  // namespace tack::lang
