// lower_bool_arrays: bool arrays become u8 arrays, with the conversions at their loads and stores.
#include "passes/lower_bool_arrays.hpp"

#include "ir/check.hpp"
#include "ir/mutator.hpp"

#include <utility>
#include <vector>

namespace tack::passes {
namespace {

ir::Type u8() { return ir::Type::strong(DType::U8); }
ir::Type boolean() { return ir::Type::strong(DType::Bool); }

class Lowering : public ir::IRMutator {
 public:
  Lowering(ir::Kernel& k, std::vector<bool> param_bool, std::vector<bool> shared_bool, std::vector<bool> local_bool)
      : k_(k),
        param_bool_(std::move(param_bool)),
        shared_bool_(std::move(shared_bool)),
        local_bool_(std::move(local_bool)) {}

  // Only statements change: a Load is always the whole value of a Let (ir.hpp), so
  // expressions are kept as they are, shared nodes included.
  using ir::IRMutator::mutate;
  ir::Expr mutate(const ir::Expr& e) override { return e; }

 protected:
  using ir::IRMutator::visit;

  // let b = load a[i]  ->  let t = load (u8) a[i]; let b = t != 0
  ir::Stmt visit(const ir::Let* n, const ir::Stmt& self) override {
    const auto* load = n->value.as<ir::Load>();
    if (!load || !is_bool(load->array)) return self;
    const int raw = static_cast<int>(k_.lets.size());
    k_.lets.push_back(u8());
    std::vector<ir::Stmt> out;
    out.push_back(ir::Let::make(raw, ir::Load::make(u8(), load->array, load->index, load->subscripts), n->loc));
    out.push_back(ir::Let::make(
        n->id, ir::Op::make(boolean(), ir::OpCode::Ne, ir::LetRef::make(u8(), raw), ir::Const::make_int(u8(), 0)),
        n->loc));
    return ir::Block::make(std::move(out), n->loc);
  }

  // a[i] = b  ->  a[i] = (u8) b, which is 0 or 1
  ir::Stmt visit(const ir::Store* n, const ir::Stmt& self) override {
    if (!is_bool(n->array)) return self;
    TACK_CHECK(n->value->type == boolean());
    return ir::Store::make(n->array, n->index, n->subscripts, ir::Cast::make(u8(), n->value), n->loc);
  }

  ir::Stmt visit(const ir::Atomic* n, const ir::Stmt& self) override {
    TACK_CHECK(!is_bool(n->array));  // infer_types refuses atomics on bool arrays
    return self;
  }

 private:
  bool is_bool(const ir::ArrayRef& a) const {
    const auto i = static_cast<std::size_t>(a.index);
    if (a.space == ir::ArrayRef::Space::Local) return local_bool_[i];
    return a.space == ir::ArrayRef::Space::Param ? param_bool_[i] : shared_bool_[i];
  }

  ir::Kernel& k_;
  std::vector<bool> param_bool_, shared_bool_;
  std::vector<bool> local_bool_;  // which arrays held bool before the rewrite
};

}  // namespace

ir::Kernel lower_bool_arrays(const ir::Kernel& typed) {
  TACK_CHECK(typed.typed);
  ir::Kernel out = typed;
  std::vector<bool> param_bool(out.params.size()), shared_bool(out.shared.size());
  bool any = false;
  for (std::size_t i = 0; i < out.params.size(); ++i) {
    ir::Param& p = out.params[i];
    if (p.kind != ir::ParamKind::Array || p.dtype != DType::Bool) continue;
    p.dtype = DType::U8;
    param_bool[i] = any = true;
  }
  for (std::size_t i = 0; i < out.shared.size(); ++i) {
    if (out.shared[i].dtype != DType::Bool) continue;
    out.shared[i].dtype = DType::U8;
    shared_bool[i] = any = true;
  }
  std::vector<bool> local_bool(out.locals.size());
  for (std::size_t i = 0; i < out.locals.size(); ++i) {
    if (out.locals[i].dtype != DType::Bool) continue;
    out.locals[i].dtype = DType::U8;
    local_bool[i] = any = true;
  }
  if (!any) return typed;
  Lowering lowering(out, std::move(param_bool), std::move(shared_bool), std::move(local_bool));
  out.body = lowering.mutate(typed.body);
  return out;
}

}  // namespace tack::passes
