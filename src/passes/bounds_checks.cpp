// bounds_checks: guard every array access and record the first one out of range.
#include "passes/bounds_checks.hpp"

#include "ir/check.hpp"
#include "ir/mutator.hpp"
#include "ir/scalar_ops.hpp"

namespace tack::passes {
namespace {

ir::Type i64() { return ir::Type::strong(DType::I64); }
ir::Type i32() { return ir::Type::strong(DType::I32); }
ir::Type boolean() { return ir::Type::strong(DType::Bool); }

class Guard : public ir::IRMutator {
 public:
  Guard(ir::Kernel& k, std::vector<CheckedAccess>& sites, int error_param)
      : k_(k), sites_(sites), error_{ir::ArrayRef::Space::Param, error_param} {}

 protected:
  using ir::IRMutator::visit;

  ir::Stmt visit(const ir::Let* n, const ir::Stmt& self) override {
    const auto* load = n->value.as<ir::Load>();
    if (!load) return self;
    // let i = index; var v = 0; if (i in range) { let t = load a[i]; v = t } else record; let id = v
    std::vector<ir::Stmt> out;
    ir::Expr i = bind_index(load->index, n->loc, out);
    ir::Type t = k_.lets[static_cast<std::size_t>(n->id)];
    int v = new_var(t);
    out.push_back(ir::DeclareVar::make(v, zero(t.dtype), n->loc));
    int tmp = new_let(t);
    std::vector<ir::Stmt> then;
    then.push_back(ir::Let::make(tmp, ir::Load::make(load->type, load->array, i, load->subscripts), n->loc));
    then.push_back(ir::Assign::make(v, ir::LetRef::make(t, tmp), n->loc));
    out.push_back(checked(load->array, i, std::move(then), n->loc));
    out.push_back(ir::Let::make(n->id, ir::VarRef::make(t, v), n->loc));
    return ir::Block::make(std::move(out), n->loc);
  }

  ir::Stmt visit(const ir::Store* n, const ir::Stmt&) override {
    std::vector<ir::Stmt> out;
    ir::Expr i = bind_index(n->index, n->loc, out);
    std::vector<ir::Stmt> then;
    then.push_back(ir::Store::make(n->array, i, n->subscripts, n->value, n->loc));
    out.push_back(checked(n->array, i, std::move(then), n->loc));
    return ir::Block::make(std::move(out), n->loc);
  }

  ir::Stmt visit(const ir::Atomic* n, const ir::Stmt&) override {
    std::vector<ir::Stmt> out;
    ir::Expr i = bind_index(n->index, n->loc, out);
    ir::Type t = k_.lets[static_cast<std::size_t>(n->result)];
    int v = new_var(t);
    out.push_back(ir::DeclareVar::make(v, zero(t.dtype), n->loc));
    int tmp = new_let(t);
    std::vector<ir::Stmt> then;
    then.push_back(ir::Atomic::make(n->op, n->array, i, n->subscripts, n->value, n->compare, tmp, n->loc));
    then.push_back(ir::Assign::make(v, ir::LetRef::make(t, tmp), n->loc));
    out.push_back(checked(n->array, i, std::move(then), n->loc));
    out.push_back(ir::Let::make(n->result, ir::VarRef::make(t, v), n->loc));
    return ir::Block::make(std::move(out), n->loc);
  }

 private:
  int new_let(ir::Type t) {
    k_.lets.push_back(t);
    return static_cast<int>(k_.lets.size()) - 1;
  }
  int new_var(ir::Type t) {
    k_.vars.push_back(t);
    return static_cast<int>(k_.vars.size()) - 1;
  }
  static ir::Expr zero(DType t) { return ir::make_const(t, 0); }

  // The index, evaluated once, as an i64 Let.
  ir::Expr bind_index(const ir::Expr& index, ir::SourceLoc loc, std::vector<ir::Stmt>& out) {
    ir::Expr e = index->type.dtype == DType::I64 ? index : ir::Cast::make(i64(), index);
    int id = new_let(i64());
    out.push_back(ir::Let::make(id, e, loc));
    return ir::LetRef::make(i64(), id);
  }

  ir::Expr extent(const ir::ArrayRef& a) const {
    if (a.space == ir::ArrayRef::Space::Shared)
      return ir::Const::make_int(i64(), k_.shared[static_cast<std::size_t>(a.index)].count);
    if (a.space == ir::ArrayRef::Space::Local)
      return ir::Const::make_int(i64(), k_.locals[static_cast<std::size_t>(a.index)].count);
    return ir::ArrayDim::make(a.index, ir::ArrayDim::kSize);
  }

  // if (0 <= i && i < extent) { then } else { record this site and i, if nothing was recorded yet }
  ir::Stmt checked(const ir::ArrayRef& a, const ir::Expr& i, std::vector<ir::Stmt> then, ir::SourceLoc loc) {
    const int site = static_cast<int>(sites_.size());
    sites_.push_back({a, loc});
    ir::Expr in_range = ir::Op::make(boolean(), ir::OpCode::And,
                                     ir::Op::make(boolean(), ir::OpCode::Ge, i, ir::Const::make_int(i64(), 0)),
                                     ir::Op::make(boolean(), ir::OpCode::Lt, i, extent(a)));
    auto at = [&](int slot) { return ir::Const::make_int(i64(), slot); };
    int old = new_let(i32());
    std::vector<ir::Stmt> record;
    record.push_back(ir::Atomic::make(ir::AtomicOp::Cas, error_, at(0), 0, ir::Const::make_int(i32(), site + 1),
                                      ir::Const::make_int(i32(), 0), old, loc));
    std::vector<ir::Stmt> first;
    first.push_back(ir::Store::make(error_, at(1), 0, ir::Cast::make(i32(), i), loc));
    first.push_back(ir::Store::make(
        error_, at(2), 0,
        ir::Cast::make(i32(), ir::Op::make(i64(), ir::OpCode::Shr, i, ir::Const::make_int(i64(), 32))), loc));
    ir::Expr was_free =
        ir::Op::make(boolean(), ir::OpCode::Eq, ir::LetRef::make(i32(), old), ir::Const::make_int(i32(), 0));
    record.push_back(ir::If::make(was_free, ir::Block::make(std::move(first), loc), {}, loc));
    return ir::If::make(in_range, ir::Block::make(std::move(then), loc), ir::Block::make(std::move(record), loc), loc);
  }

  ir::Kernel& k_;
  std::vector<CheckedAccess>& sites_;
  ir::ArrayRef error_;
};

}  // namespace

BoundsChecked bounds_checks(const ir::Kernel& typed) {
  TACK_CHECK(typed.typed);
  BoundsChecked out;
  out.kernel = typed;
  out.error_param = static_cast<int>(typed.params.size());
  ir::Param error;
  error.kind = ir::ParamKind::Array;
  error.dtype = DType::I32;
  error.rank = 1;
  out.kernel.params.push_back(error);
  Guard guard(out.kernel, out.sites, out.error_param);
  out.kernel.body = guard.mutate(typed.body);
  return out;
}

}  // namespace tack::passes
