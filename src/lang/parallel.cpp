// The kernel's one parallel loop: parallel_for (1-D to 4-D) or workgroup_for,
// and the Group a workgroup body sees.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang {

// Bytes of shared memory one group may declare: the smallest default among GPUs.
constexpr std::int64_t kMaxSharedBytes = 48 * 1024;

namespace detail {

std::vector<Value> begin_parallel(std::initializer_list<Value> dims, std::size_t body_arity,
                                  const std::source_location& l) {
  auto& ctx = TraceContext::current("parallel_for");
  auto loc = to_loc(l);
  if (dims.size() < 1 || dims.size() > 4)
    ctx.fail(loc, "parallel_for takes 1 to 4 dimensions, got " + std::to_string(dims.size()));
  if (dims.size() != body_arity)
    ctx.fail(loc, "parallel_for over " + std::to_string(dims.size()) + " dimensions needs a body taking " +
                      std::to_string(dims.size()) + " Index arguments, not " + std::to_string(body_arity));
  ctx.begin_launch("parallel_for", loc);
  ir::Kernel& k = ctx.kernel();
  k.launch = ir::LaunchKind::Parallel;
  std::vector<Value> idx;
  for (const Value& d : dims) {
    k.dims.push_back(ir::Expr(d.expr()));
    idx.push_back(Value(ir::LoopIndex::make(static_cast<int>(idx.size())).ptr()));
  }
  return idx;
}

void end_parallel() { TraceContext::current("parallel_for").end_launch(); }

}  // namespace detail

void workgroup_for(const Value& num_groups, const std::function<void(Group)>& body, std::source_location l) {
  auto& ctx = detail::TraceContext::current("workgroup_for");
  auto loc = detail::to_loc(l);
  ctx.begin_launch("workgroup_for", loc);
  ir::Kernel& k = ctx.kernel();
  k.launch = ir::LaunchKind::Workgroup;
  k.dims.push_back(ir::Expr(num_groups.expr()));
  ctx.set_in_workgroup(true);
  body(Group{});
  ctx.set_in_workgroup(false);
  ctx.end_launch();
}

namespace {
Value group_value(ir::GroupField f) { return Value(ir::GroupValue::make(f).ptr()); }
detail::TraceContext& group_context(const char* what, const ir::SourceLoc& loc) {
  auto& ctx = detail::TraceContext::current(what);
  if (!ctx.in_workgroup()) ctx.fail(loc, std::string(what) + " is only available inside workgroup_for");
  return ctx;
}
Value reduce(ir::ReduceOp op, const Located& v) {
  auto loc = detail::to_loc(v.loc);
  auto& ctx = group_context("Group::reduce", loc);
  int result = ctx.new_let(loc);
  ctx.emit(ir::GroupReduce::make(op, ir::Expr(v.value.expr()), result, loc));
  return Value(ir::LetRef::make(ir::Type::unknown(), result).ptr());
}
}  // namespace

Value Group::local_id() const { return group_value(ir::GroupField::LocalId); }
Value Group::group_id() const { return group_value(ir::GroupField::GroupId); }
Value Group::size() const { return group_value(ir::GroupField::GroupSize); }
Value Group::num_groups() const { return group_value(ir::GroupField::NumGroups); }
Value Group::global_id() const { return group_id() * size() + local_id(); }

SharedArray Group::shared(DType dtype, std::int64_t count, std::source_location l) const {
  auto loc = detail::to_loc(l);
  auto& ctx = group_context("Group::shared", loc);
  if (count <= 0) ctx.fail(loc, "a shared array needs a positive element count, got " + std::to_string(count));
  ir::Kernel& k = ctx.kernel();
  std::int64_t bytes = 0;
  for (const auto& s : k.shared) bytes += s.count * static_cast<std::int64_t>(dtype_size(s.dtype));
  if (count > kMaxSharedBytes || bytes + count * static_cast<std::int64_t>(dtype_size(dtype)) > kMaxSharedBytes)
    ctx.fail(loc, "shared arrays of one group may hold at most " + std::to_string(kMaxSharedBytes) +
                      " bytes in all; this one asks for " + std::to_string(count) + " " +
                      std::string(dtype_name(dtype)) + " elements");
  k.shared.push_back({dtype, count});
  return SharedArray(static_cast<int>(k.shared.size() - 1), count);
}

void Group::barrier(std::source_location l) const {
  auto loc = detail::to_loc(l);
  auto& ctx = group_context("Group::barrier", loc);
  ctx.emit(ir::Barrier::make(loc));
}

Value Group::reduce_add(Located v) const { return reduce(ir::ReduceOp::Add, v); }
Value Group::reduce_min(Located v) const { return reduce(ir::ReduceOp::Min, v); }
Value Group::reduce_max(Located v) const { return reduce(ir::ReduceOp::Max, v); }

}  // namespace tack::lang
