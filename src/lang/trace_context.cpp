// The per-thread trace state, and the scope checks that turn a C++ Value escaping
// its if_/for_range/while_ body into a clear error instead of invalid IR.
#include "lang/trace_context.hpp"

#include "ir/check.hpp"

#include <tack/error.hpp>

#include <mutex>
#include <string>
#include <unordered_set>

namespace tack::lang::detail {
namespace {
thread_local TraceContext* g_current = nullptr;
}

TraceContext* TraceContext::active() { return g_current; }

void TraceContext::note_origin(const ir::ExprNode* e) {
  if (blocks_.size() > 1) origin_.emplace(e, std::make_pair(blocks_.back().id, last_loc_));
}

namespace {
thread_local ir::SourceLoc g_location_override;
}

ir::SourceLoc to_loc(const std::source_location& l) {
  if (g_location_override.file) return g_location_override;
  return {l.file_name(), static_cast<int>(l.line())};
}

const char* intern_file_name(std::string_view file) {
  // Locations hold `const char*` for the life of the process, as std::source_location's do.
  static std::mutex mutex;
  static std::unordered_set<std::string> names;
  std::lock_guard lock(mutex);
  return names.emplace(file).first->c_str();
}

LocationOverride::LocationOverride(const char* file, int line) : previous_(g_location_override) {
  g_location_override = {file, line};
}
LocationOverride::~LocationOverride() { g_location_override = previous_; }

void set_location_override(const char* file, int line) { g_location_override = {file, line}; }

TraceContext::TraceContext(ir::Kernel& kernel) : kernel_(kernel), previous_(g_current) { g_current = this; }
TraceContext::~TraceContext() { g_current = previous_; }

TraceContext& TraceContext::current(const char* what) {
  if (!g_current)
    throw InvalidArgument(std::string("tack::lang::") + what +
                          " was used outside a kernel: the kernel language only works inside the function given "
                          "to tack::kernel, while it is traced");
  return *g_current;
}

void TraceContext::fail(const ir::SourceLoc& loc, const std::string& message) const {
  std::string where = loc.str();
  throw InvalidArgument("kernel '" + kernel_.name + "'" + (where.empty() ? "" : " at " + where) + ": " + message);
}

int TraceContext::new_let(const ir::SourceLoc& loc) {
  int id = static_cast<int>(kernel_.lets.size());
  kernel_.lets.push_back(ir::Type::unknown());
  let_live_.push_back(true);
  let_loc_.push_back(loc);
  if (!blocks_.empty()) blocks_.back().lets.push_back(id);
  return id;
}

int TraceContext::new_var(const ir::SourceLoc& loc) {
  int id = static_cast<int>(kernel_.vars.size());
  kernel_.vars.push_back(ir::Type::unknown());
  var_live_.push_back(true);
  var_loc_.push_back(loc);
  if (!blocks_.empty()) blocks_.back().vars.push_back(id);
  return id;
}

Value TraceContext::bind(ir::Expr e, const ir::SourceLoc& loc) {
  int id = new_let(loc);
  emit(ir::Let::make(id, e, loc));
  return Value(ir::LetRef::make(ir::Type::unknown(), id).ptr());
}

const std::pair<int, ir::SourceLoc>* TraceContext::self_origin(const ir::ExprNode* e) const {
  auto it = origin_.find(e);
  return it == origin_.end() ? nullptr : &it->second;
}

void TraceContext::check_scope(const ir::Expr& e, const ir::SourceLoc& use) const {
  struct Checker {
    const TraceContext* self;
    const ir::SourceLoc* use;
    void visit(const ir::LetRef* r) const {
      if (r->id < 0 || r->id >= static_cast<int>(self->let_live_.size()))
        self->fail(*use, "uses a Value that belongs to another kernel's trace");
      if (!self->let_live_[r->id])
        self->fail(*use, "uses a Value made at " + self->let_loc_[r->id].str() +
                             " inside an if_/for_range/while_ body that has ended; declare a Var before the body "
                             "and assign it inside instead");
    }
    void visit(const ir::VarRef* r) const {
      if (r->id < 0 || r->id >= static_cast<int>(self->var_live_.size()))
        self->fail(*use, "uses a Var that belongs to another kernel's trace");
      if (!self->var_live_[r->id])
        self->fail(*use, "uses a Var declared at " + self->var_loc_[r->id].str() +
                             " inside an if_/for_range/while_ body that has ended; declare it before the body");
    }
  };
  if (!e) return;
  Checker c;
  c.self = this;
  c.use = &use;
  // A DAG can share subtrees heavily; visit each node once. The set and the stack are the context's, kept
  // allocated from statement to statement.
  scope_seen_.clear();
  std::vector<ir::Expr>& stack = scope_stack_;
  stack.assign(1, e);
  while (!stack.empty()) {
    ir::Expr x = std::move(stack.back());
    stack.pop_back();
    if (!x || !scope_seen_.insert(x.get()).second) continue;
    if (const auto* o = self_origin(x.get()); o && !scope_live_[o->first])
      fail(use, "uses a Value computed inside an if_/for_range/while_ body (near " + o->second.str() +
                    ") after that body ended: assigning a C++ Value inside a body does not make it conditional; "
                    "declare a Var before the body and assign it inside instead");
    if (auto r = x.as<ir::LetRef>())
      c.visit(r);
    else if (auto v = x.as<ir::VarRef>())
      c.visit(v);
    else if (auto l = x.as<ir::Load>())
      stack.push_back(l->index);
    else if (auto o = x.as<ir::Op>())
      for (const auto& a : o->args) stack.push_back(a);
    else if (auto s = x.as<ir::Select>())
      stack.insert(stack.end(), {s->cond, s->if_true, s->if_false});
    else if (auto k = x.as<ir::Cast>())
      stack.push_back(k->value);
    else if (auto t = x.as<ir::TexSample>())
      stack.insert(stack.end(), {t->u, t->v, t->w});
  }
}

void TraceContext::emit(ir::Stmt s) {
  TACK_CHECK(!blocks_.empty());
  if (s->loc.file) last_loc_ = s->loc;
  auto check = [&](const ir::Expr& e) { check_scope(e, s->loc); };
  switch (s->kind) {
    case ir::StmtKind::Let: check(s.as<ir::Let>()->value); break;
    case ir::StmtKind::DeclareVar: check(s.as<ir::DeclareVar>()->init); break;
    case ir::StmtKind::Assign: {
      auto a = s.as<ir::Assign>();
      require_live_var(a->id, "assigns", s->loc);
      check(a->value);
      break;
    }
    case ir::StmtKind::Store: {
      auto st = s.as<ir::Store>();
      check(st->index);
      check(st->value);
      break;
    }
    case ir::StmtKind::Atomic: {
      auto a = s.as<ir::Atomic>();
      check(a->index);
      check(a->value);
      check(a->compare);
      break;
    }
    case ir::StmtKind::If: check(s.as<ir::If>()->cond); break;
    case ir::StmtKind::For: {
      auto f = s.as<ir::For>();
      check(f->lo);
      check(f->hi);
      break;
    }
    case ir::StmtKind::GroupReduce: check(s.as<ir::GroupReduce>()->value); break;
    case ir::StmtKind::Print:
      for (const ir::Expr& a : s.as<ir::Print>()->args) check(a);
      break;
    default: break;
  }
  blocks_.back().stmts.push_back(std::move(s));
}

void TraceContext::open_block() {
  blocks_.emplace_back();
  blocks_.back().id = static_cast<int>(scope_live_.size());
  scope_live_.push_back(true);
}

ir::Stmt TraceContext::close_block(const ir::SourceLoc& loc) {
  TACK_CHECK(!blocks_.empty());
  Scope scope = std::move(blocks_.back());
  blocks_.pop_back();
  for (int id : scope.lets) let_live_[id] = false;
  for (int id : scope.vars) var_live_[id] = false;
  scope_live_[scope.id] = false;
  return ir::Block::make(std::move(scope.stmts), loc);
}

void TraceContext::require_body(const char* what, const ir::SourceLoc& loc) {
  if (!in_body_)
    fail(loc, std::string(what) +
                  " is a statement, and statements belong inside the kernel's parallel_for or workgroup_for body");
}

void TraceContext::require_live_var(int id, const char* verb, const ir::SourceLoc& loc) const {
  if (id < 0 || id >= static_cast<int>(var_live_.size()))
    fail(loc, std::string(verb) + " a Var that belongs to another kernel's trace");
  if (var_live_[id]) return;
  // Vars are declared only inside the launch body, so once it has ended (no
  // block is open any more) every Var is dead; moving the declaration cannot help.
  if (!in_body_)
    fail(loc, std::string(verb) + " a Var declared at " + var_loc_[id].str() +
                  " after the parallel_for/workgroup_for body it was declared in has ended; a Var lives only "
                  "inside that body");
  fail(loc, std::string(verb) + " a Var declared at " + var_loc_[id].str() +
                " inside an if_/for_range/while_ body that has ended; declare it before the body");
}

void TraceContext::begin_launch(const char* what, const ir::SourceLoc& loc) {
  if (in_body_) fail(loc, std::string(what) + " inside another parallel_for/workgroup_for: a kernel has exactly one");
  if (launch_seen_)
    fail(loc, std::string("a second ") + what +
                  ": a kernel has exactly one parallel_for or workgroup_for; split the work into two kernels");
  launch_seen_ = true;
  in_body_ = true;
  open_block();
}

void TraceContext::end_launch() {
  kernel_.body = close_block(kernel_.loc);
  in_body_ = false;
}

}  // namespace tack::lang::detail
