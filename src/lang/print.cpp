// tack::lang::print and print_if: a Print statement, refused at trace time when
// its format does not match its arguments.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang::detail {

void print(const PrintFormat& format, const Value* cond, std::vector<Value> args) {
  auto& ctx = TraceContext::current("print");
  auto loc = to_loc(format.loc);
  ctx.require_body("print", loc);
  const int holes = ir::print_placeholders(format.text);
  if (holes < 0)
    ctx.fail(loc, "the print format \"" + format.text + "\" has a lone '{' or '}'; write {{ or }} for a brace");
  if (holes != static_cast<int>(args.size()))
    ctx.fail(loc, "the print format \"" + format.text + "\" has " + std::to_string(holes) + " {} but " +
                      std::to_string(args.size()) + " argument" + (args.size() == 1 ? " was" : "s were") + " given");
  std::vector<ir::Expr> exprs;
  for (const Value& v : args) exprs.emplace_back(v.expr());
  ir::Stmt p = ir::Print::make(format.text, std::move(exprs), loc);
  if (!cond) return ctx.emit(std::move(p));
  ctx.open_block();
  ctx.emit(std::move(p));
  ctx.emit(ir::If::make(ir::Expr(cond->expr()), ctx.close_block(loc), {}, loc));
}

}  // namespace tack::lang::detail
