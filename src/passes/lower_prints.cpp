// lower_prints: Print statements become a slot claimed with an atomic add and
// stores of the record into the hidden arrays (see lower_prints.hpp).
#include "passes/lower_prints.hpp"

#include "ir/check.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

#include <algorithm>
#include <map>

namespace tack::passes {
namespace {

ir::Type strong(DType t) { return ir::Type::strong(t); }
ir::Expr i64(std::int64_t v) { return ir::Const::make_int(strong(DType::I64), v); }
ir::Expr op(DType t, ir::OpCode code, ir::Expr a, ir::Expr b) {
  return ir::Op::make(strong(t), code, std::move(a), std::move(b));
}

// The array an argument is stored in: 32-bit words for anything that fits, else its own dtype.
DType storage_of(DType t) {
  switch (t) {
    case DType::I64:
    case DType::U64: return DType::U64;
    case DType::F32: return DType::F32;
    case DType::F64: return DType::F64;
    default: return DType::U32;
  }
}

bool has_prints(const ir::Stmt& body) {
  bool found = false;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) { found = found || s->kind == ir::StmtKind::Print; });
  return found;
}

class Lower : public ir::IRMutator {
 public:
  Lower(ir::Kernel& k, PrintLayout& layout) : k_(k), layout_(layout) {}

  // First pass: the record layout, from the widest print of each storage dtype.
  void plan(const ir::Stmt& body) {
    std::map<DType, int> widest;
    ir::for_each_stmt(body, [&](const ir::Stmt& s) {
      auto p = s.as<ir::Print>();
      if (!p) return;
      std::map<DType, int> used;
      for (const ir::Expr& a : p->args) ++used[storage_of(a->type.dtype)];
      for (auto [t, n] : used) widest[t] = std::max(widest[t], n);
    });
    layout_.words_param = add_param(DType::U32);
    layout_.words_width = 3 + widest[DType::U32];
    for (DType t : {DType::U64, DType::F32, DType::F64})
      if (widest[t] > 0) layout_.columns.push_back({t, add_param(t), widest[t]});
  }

 protected:
  using ir::IRMutator::visit;

  ir::Stmt visit(const ir::Print* n, const ir::Stmt&) override {
    const ir::SourceLoc loc = n->loc;
    PrintSite site{n->format, {}, loc};
    const int site_number = static_cast<int>(layout_.sites.size());
    const ir::ArrayRef words{ir::ArrayRef::Space::Param, layout_.words_param};
    const std::int64_t w = layout_.words_width;

    // let slot = atomic_add words[0], 1
    std::vector<ir::Stmt> out;
    const int slot = new_let(strong(DType::U32));
    out.push_back(ir::Atomic::make(ir::AtomicOp::Add, words, i64(0), 0, ir::Const::make_int(strong(DType::U32), 1), {},
                                   slot, loc));
    ir::Expr r = ir::Cast::make(strong(DType::I64), ir::LetRef::make(strong(DType::U32), slot));
    // The record fits when its last word is inside `words`: 1 + r*W + W <= size.
    ir::Expr base = op(DType::I64, ir::OpCode::Add, i64(1), op(DType::I64, ir::OpCode::Mul, r, i64(w)));
    ir::Expr fits = op(DType::Bool, ir::OpCode::Le, op(DType::I64, ir::OpCode::Add, base, i64(w)),
                       ir::ArrayDim::make(layout_.words_param, ir::ArrayDim::kSize));

    std::vector<ir::Stmt> record;
    auto store = [&](ir::ArrayRef a, ir::Expr index, DType t, ir::Expr value) {
      if (value->type.dtype != t) value = ir::Cast::make(strong(t), value);
      record.push_back(ir::Store::make(a, std::move(index), 0, std::move(value), loc));
    };
    auto word = [&](std::int64_t k) { return op(DType::I64, ir::OpCode::Add, base, i64(k)); };
    ir::Expr flat = flat_index();
    store(words, word(0), DType::U32, flat);
    store(words, word(1), DType::U32, op(DType::I64, ir::OpCode::Shr, flat, i64(32)));
    store(words, word(2), DType::U32, ir::Const::make_int(strong(DType::U32), site_number));
    std::map<DType, int> next;
    for (const ir::Expr& a : n->args) {
      const DType t = storage_of(a->type.dtype);
      const int k = next[t]++;
      if (t == DType::U32) {
        site.args.push_back({a->type.dtype, 0, 3 + k});
        store(words, word(3 + k), t, a);
        continue;
      }
      const auto& cols = layout_.columns;
      const auto it = std::find_if(cols.begin(), cols.end(), [&](const PrintColumn& c) { return c.dtype == t; });
      TACK_CHECK(it != cols.end());
      site.args.push_back({a->type.dtype, static_cast<int>(it - cols.begin()) + 1, k});
      ir::Expr index = op(DType::I64, ir::OpCode::Add, op(DType::I64, ir::OpCode::Mul, r, i64(it->width)), i64(k));
      store({ir::ArrayRef::Space::Param, it->param}, index, t, a);
    }
    out.push_back(ir::If::make(fits, ir::Block::make(std::move(record), loc), {}, loc));
    layout_.sites.push_back(std::move(site));
    return ir::Block::make(std::move(out), loc);
  }

 private:
  int add_param(DType t) {
    ir::Param p;
    p.kind = ir::ParamKind::Array;
    p.dtype = t;
    p.rank = 1;
    k_.params.push_back(p);
    return static_cast<int>(k_.params.size()) - 1;
  }
  int new_let(ir::Type t) {
    k_.lets.push_back(t);
    return static_cast<int>(k_.lets.size()) - 1;
  }

  // The work-item's index: the flat index of the N-D range (row-major), or group_id * size + local_id.
  ir::Expr flat_index() const {
    if (k_.launch == ir::LaunchKind::Workgroup)
      return op(DType::I64, ir::OpCode::Add,
                op(DType::I64, ir::OpCode::Mul, ir::GroupValue::make(ir::GroupField::GroupId),
                   ir::GroupValue::make(ir::GroupField::GroupSize)),
                ir::GroupValue::make(ir::GroupField::LocalId));
    ir::Expr flat = ir::LoopIndex::make(0);
    for (std::size_t d = 1; d < k_.dims.size(); ++d)
      flat = op(DType::I64, ir::OpCode::Add, op(DType::I64, ir::OpCode::Mul, flat, k_.dims[d]),
                ir::LoopIndex::make(static_cast<int>(d)));
    return flat;
  }

  ir::Kernel& k_;
  PrintLayout& layout_;
};

}  // namespace

PrintsLowered lower_prints(const ir::Kernel& typed) {
  TACK_CHECK(typed.typed);
  PrintsLowered out;
  out.kernel = typed;
  if (!has_prints(typed.body)) return out;
  Lower lower(out.kernel, out.layout);
  lower.plan(typed.body);
  out.kernel.body = lower.mutate(typed.body);
  return out;
}

}  // namespace tack::passes
