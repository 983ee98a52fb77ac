// Traced control flow: if_, for_range, while_, break_ and continue_ become IR
// statements; their bodies run once, at trace time, to record what they do.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang {
namespace {
ir::Stmt traced_block(detail::TraceContext& ctx, const std::function<void()>& body, const ir::SourceLoc& loc) {
  ctx.open_block();
  body();
  return ctx.close_block(loc);
}
}  // namespace

void if_(const Value& cond, const std::function<void()>& then_body, std::source_location l) {
  auto& ctx = detail::TraceContext::current("if_");
  auto loc = detail::to_loc(l);
  ctx.require_body("if_", loc);
  ir::Stmt t = traced_block(ctx, then_body, loc);
  ctx.emit(ir::If::make(ir::Expr(cond.expr()), t, {}, loc));
}

void if_(const Value& cond, const std::function<void()>& then_body, const std::function<void()>& else_body,
         std::source_location l) {
  auto& ctx = detail::TraceContext::current("if_");
  auto loc = detail::to_loc(l);
  ctx.require_body("if_", loc);
  ir::Stmt t = traced_block(ctx, then_body, loc);
  ir::Stmt e = traced_block(ctx, else_body, loc);
  ctx.emit(ir::If::make(ir::Expr(cond.expr()), t, e, loc));
}

void for_range(const Value& lo, const Value& hi, const std::function<void(Index)>& body, std::source_location l) {
  auto& ctx = detail::TraceContext::current("for_range");
  auto loc = detail::to_loc(l);
  ctx.require_body("for_range", loc);
  ctx.open_block();
  int index = ctx.new_let(loc);
  ++ctx.loop_depth;
  body(Value(ir::LetRef::make(ir::Type::unknown(), index).ptr()));
  --ctx.loop_depth;
  ir::Stmt b = ctx.close_block(loc);
  ctx.emit(ir::For::make(index, ir::Expr(lo.expr()), ir::Expr(hi.expr()), b, loc));
}

void while_(const std::function<Value()>& cond, const std::function<void()>& body, std::source_location l) {
  auto& ctx = detail::TraceContext::current("while_");
  auto loc = detail::to_loc(l);
  ctx.require_body("while_", loc);
  ctx.open_block();
  ++ctx.loop_depth;
  Value c = cond();
  // if (cond) {} else { break; }: a non-bool condition is then reported as while_'s.
  ctx.emit(
      ir::If::make(ir::Expr(c.expr()), ir::Block::make({}, loc), ir::Block::make({ir::Break::make(loc)}, loc), loc));
  body();
  --ctx.loop_depth;
  ctx.emit(ir::Loop::make(ctx.close_block(loc), loc));
}

void break_(std::source_location l) {
  auto& ctx = detail::TraceContext::current("break_");
  auto loc = detail::to_loc(l);
  if (ctx.loop_depth == 0) ctx.fail(loc, "break_() outside a for_range or while_ body");
  ctx.emit(ir::Break::make(loc));
}

void continue_(std::source_location l) {
  auto& ctx = detail::TraceContext::current("continue_");
  auto loc = detail::to_loc(l);
  if (ctx.loop_depth == 0) ctx.fail(loc, "continue_() outside a for_range or while_ body");
  ctx.emit(ir::Continue::make(loc));
}

}  // namespace tack::lang
