// Per-work-item arrays (lang::local_array): declared in Kernel::locals, zeroed by
// an ordinary loop of stores where the program declares them, so every backend
// only has to give each work-item its own storage.
#include "ir/ir.hpp"
#include "ir/scalar_ops.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

#include <string>

namespace tack::lang {

LocalArray local_array(DType dtype, std::int64_t count, std::source_location l) {
  auto& ctx = detail::TraceContext::current("local_array");
  auto loc = detail::to_loc(l);
  ctx.require_body("local_array", loc);
  if (count <= 0) ctx.fail(loc, "a local array needs a positive element count, got " + std::to_string(count));
  ir::Kernel& k = ctx.kernel();
  std::int64_t bytes = 0;
  for (const auto& a : k.locals) bytes += a.count * static_cast<std::int64_t>(dtype_size(a.dtype));
  const auto size = static_cast<std::int64_t>(dtype_size(dtype));
  if (count > kMaxLocalBytes || bytes + count * size > kMaxLocalBytes)
    ctx.fail(loc, "the local arrays of one work-item may hold at most " + std::to_string(kMaxLocalBytes) +
                      " bytes in all; this one asks for " + std::to_string(count) + " " +
                      std::string(dtype_name(dtype)) + " elements (" + std::to_string(count * size) + " bytes) after " +
                      std::to_string(bytes) + " bytes already declared");
  k.locals.push_back({dtype, count});
  const int index = static_cast<int>(k.locals.size()) - 1;
  // Zeroed here, each time the declaration runs (inside a loop: every iteration).
  const ir::Type i64 = ir::Type::strong(DType::I64);
  ctx.open_block();
  int z = ctx.new_let(loc);
  ctx.emit(ir::Store::make({ir::ArrayRef::Space::Local, index}, ir::LetRef::make(ir::Type::unknown(), z), 0,
                           ir::make_const(dtype, 0), loc));
  ir::Stmt body = ctx.close_block(loc);
  ctx.emit(ir::For::make(z, ir::Const::make_int(i64, 0), ir::Const::make_int(i64, count), body, loc));
  return LocalArray(index, count, dtype);
}

Value LocalArray::size() const { return Value(count_); }

}  // namespace tack::lang
