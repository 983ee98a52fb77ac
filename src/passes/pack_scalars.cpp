// pack_scalars: host scalars become loads from per-dtype pack arrays.
#include "passes/pack_scalars.hpp"

#include "ir/check.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

#include <map>
#include <set>
#include <utility>

namespace tack::passes {
namespace {

using Key = std::pair<int, int>;  // (param, dim); dim is 0 for a scalar

class Collect : public ir::IRVisitor {
 public:
  std::map<Key, bool> scalars, extents;  // ordered, so the layout is deterministic
  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::ScalarParam* n) override { scalars[{n->param, 0}] = true; }
  void visit(const ir::ArrayDim* n) override {
    if (!textures.count(n->param)) extents[{n->param, n->dim}] = true;
  }

 public:
  std::set<int> textures;  // texture parameters: their extents are always packed (TextureExtent)
};

class Replace : public ir::IRMutator {
 public:
  std::map<Key, ir::Expr> scalars, extents;

 protected:
  using ir::IRMutator::visit;
  ir::Expr visit(const ir::ScalarParam* n, const ir::Expr&) override { return scalars.at({n->param, 0}); }
  ir::Expr visit(const ir::ArrayDim* n, const ir::Expr&) override { return extents.at({n->param, n->dim}); }
};

DType storage_dtype(DType t) { return t == DType::Bool ? DType::U8 : t; }

}  // namespace

PackedKernel pack_scalars(const ir::Kernel& typed) {
  TACK_CHECK(typed.typed);
  // dims[0] is never evaluated on the device: the host resolves the launch count, and the flat index is
  // decomposed by the inner extents only.
  Collect used;
  for (std::size_t p = 0; p < typed.params.size(); ++p)
    if (typed.params[p].kind == ir::ParamKind::Texture) used.textures.insert(static_cast<int>(p));
  for (std::size_t d = 1; d < typed.dims.size(); ++d) used.visit(typed.dims[d]);
  used.visit(typed.body);

  // Every value to pack, in a deterministic order: scalars, array extents, texture extents.
  std::vector<PackSlot> values;
  for (const auto& [key, _] : used.scalars) values.push_back({PackSlot::Source::Scalar, key.first, key.second});
  for (const auto& [key, _] : used.extents) values.push_back({PackSlot::Source::ArrayExtent, key.first, key.second});
  for (std::size_t p = 0; p < typed.params.size(); ++p)
    if (typed.params[p].kind == ir::ParamKind::Texture)
      for (int d = 0; d < 3; ++d) values.push_back({PackSlot::Source::TextureExtent, static_cast<int>(p), d});

  PackedKernel out;
  out.kernel = typed;
  ir::Kernel& k = out.kernel;
  auto value_dtype = [&](const PackSlot& s) {
    return s.source == PackSlot::Source::Scalar ? typed.params[static_cast<std::size_t>(s.param)].dtype : DType::I64;
  };

  // One pack array per storage dtype, in dtype order.
  std::map<int, std::size_t> array_of_dtype;
  for (const PackSlot& s : values) array_of_dtype[static_cast<int>(storage_dtype(value_dtype(s)))] = 0;
  for (auto& [dt, index] : array_of_dtype) {
    index = out.pack.arrays.size();
    PackArray a;
    a.dtype = static_cast<DType>(dt);
    a.param = static_cast<int>(k.params.size());
    out.pack.arrays.push_back(a);
    ir::Param p;
    p.kind = ir::ParamKind::Array;
    p.dtype = a.dtype;
    p.rank = 1;
    p.scalar_pack = true;
    k.params.push_back(p);
  }

  Replace replace;
  std::vector<ir::Stmt> body;
  for (PackSlot s : values) {
    DType vt = value_dtype(s);
    DType st = storage_dtype(vt);
    PackArray& a = out.pack.arrays[array_of_dtype.at(static_cast<int>(st))];
    s.let = static_cast<int>(k.lets.size());
    k.lets.push_back(ir::Type::strong(st));
    ir::Expr index = ir::Const::make_int(ir::Type::strong(DType::I64), static_cast<std::int64_t>(a.slots.size()));
    ir::Expr load = ir::Load::make(ir::Type::strong(st), {ir::ArrayRef::Space::Param, a.param}, index, 0);
    body.push_back(ir::Let::make(s.let, load, typed.loc));
    a.slots.push_back(s);
    ir::Expr read = ir::LetRef::make(ir::Type::strong(st), s.let);
    if (vt != st) read = ir::Cast::make(ir::Type::strong(vt), read);
    if (s.source == PackSlot::Source::Scalar) replace.scalars[{s.param, s.dim}] = read;
    if (s.source == PackSlot::Source::ArrayExtent || s.source == PackSlot::Source::TextureExtent)
      replace.extents[{s.param, s.dim}] = read;
  }
  out.leading_lets = static_cast<int>(body.size());

  for (std::size_t d = 1; d < k.dims.size(); ++d) k.dims[d] = replace.mutate(typed.dims[d]);
  if (ir::Stmt rest = replace.mutate(typed.body)) body.push_back(rest);
  k.body = ir::Block::make(std::move(body), typed.loc);
  return out;
}

}  // namespace tack::passes
