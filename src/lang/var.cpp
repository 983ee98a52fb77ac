// Kernel variables: declared, assigned and read as statements, so their value can
// change inside traced loops and branches.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang {

void Var::declare(const Value& init, const std::source_location& l) {
  auto& ctx = detail::TraceContext::current("Var");
  auto loc = detail::to_loc(l);
  ctx.require_body("declaring a Var", loc);
  id_ = ctx.new_var(loc);
  ctx.emit(ir::DeclareVar::make(id_, ir::Expr(init.expr()), loc));
}

Var::Var(const Var& other, std::source_location loc) { declare(other.value(), loc); }

Var& Var::name(std::string_view name) {
  auto& ctx = detail::TraceContext::current("Var::name");
  std::vector<std::string>& names = ctx.kernel().var_names;
  if (names.size() <= static_cast<std::size_t>(id_)) names.resize(id_ + 1);
  names[id_] = std::string(name);
  return *this;
}

Var& Var::update(Value v, const std::source_location& l) {
  auto& ctx = detail::TraceContext::current("Var assignment");
  auto loc = detail::to_loc(l);
  ctx.require_live_var(id_, "assigns", loc);
  ctx.require_body("assigning a Var", loc);
  ctx.emit(ir::Assign::make(id_, ir::Expr(v.expr()), loc));
  return *this;
}

Var& Var::assign(const Value& v) {
  auto& ctx = detail::TraceContext::current("Var assignment");
  ir::SourceLoc loc = ctx.last_loc();
  ctx.require_live_var(id_, "assigns", loc);
  ctx.require_body("assigning a Var", loc);
  ctx.emit(ir::Assign::make(id_, ir::Expr(v.expr()), loc));
  return *this;
}
Var& Var::operator+=(Located v) { return update(value() + v.value, v.loc); }
Var& Var::operator-=(Located v) { return update(value() - v.value, v.loc); }
Var& Var::operator*=(Located v) { return update(value() * v.value, v.loc); }
Var& Var::operator/=(Located v) { return update(value() / v.value, v.loc); }
Var& Var::operator%=(Located v) { return update(value() % v.value, v.loc); }
Var& Var::operator&=(Located v) { return update(value() & v.value, v.loc); }
Var& Var::operator|=(Located v) { return update(value() | v.value, v.loc); }
Var& Var::operator^=(Located v) { return update(value() ^ v.value, v.loc); }
Var& Var::operator<<=(Located v) { return update(value() << v.value, v.loc); }
Var& Var::operator>>=(Located v) { return update(value() >> v.value, v.loc); }

Var::operator Value() const {
  auto& ctx = detail::TraceContext::current("Var");
  ir::SourceLoc loc = ctx.last_loc();
  // A read is a Let statement: the Var must still be in scope (not one kept
  // past the end of its body, e.g. in a std::optional) and a body must be open.
  ctx.require_live_var(id_, "uses", loc);
  ctx.require_body("reading a Var", loc);
  return ctx.bind(ir::VarRef::make(ir::Type::unknown(), id_), loc);
}

}  // namespace tack::lang
