// The C-family emitter's statements: one C statement (or block) per IR
// statement, each preceded by the temporaries of its shared subexpressions;
// group reductions as a tree in shared scratch, atomics through the dialect's
// hook or the subword helper.
#include "codegen/c_family.hpp"

#include "codegen/statement_uses.hpp"
#include "ir/check.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen {

namespace {
// `e` in one pair of parentheses: "(a == b)" stays as it is (clang warns on "((a == b))"), "a" becomes "(a)".
std::string parenthesized(const std::string& e) {
  if (e.size() >= 2 && e.front() == '(' && e.back() == ')') {
    int depth = 0;
    std::size_t i = 0;
    for (; i < e.size(); ++i) {
      depth += e[i] == '(' ? 1 : e[i] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    if (i == e.size() - 1) return e;
  }
  return "(" + e + ")";
}

// Whether s holds a barrier or a group reduction (which ends with one).
bool synchronizes(const ir::Stmt& s) {
  bool found = false;
  ir::for_each_stmt(s, [&](const ir::Stmt& c) {
    found = found || c->kind == ir::StmtKind::Barrier || c->kind == ir::StmtKind::GroupReduce;
  });
  return found;
}
}  // namespace

void CFamilyCodeGen::line(const std::string& text) {
  body_.append(static_cast<std::size_t>(indent_) * 2, ' ');
  body_ += text;
  body_ += '\n';
}

void CFamilyCodeGen::flush_temps() {
  for (const std::string& t : pending_) line(t);
  pending_.clear();
}

void CFamilyCodeGen::begin_statement(std::initializer_list<const ir::Expr*> roots) {
  StatementUses su = statement_uses(roots, k_->fp_contract);
  uses_ = std::move(su.uses);
  contract_ = std::move(su.fusible);
  temps_.clear();
  pending_.clear();
  unsigned_form_.clear();
}

std::string CFamilyCodeGen::array_name(const ir::ArrayRef& a) const {
  if (a.space == ir::ArrayRef::Space::Shared) return "sh" + std::to_string(a.index);
  if (a.space == ir::ArrayRef::Space::Local) return "la" + std::to_string(a.index);
  const ir::Param& p = k_->params[static_cast<std::size_t>(a.index)];
  TACK_CHECK(p.kind == ir::ParamKind::Array);
  return param_ref(p.scalar_pack ? "pack_" + suffix(p.dtype) : "a" + std::to_string(a.index));
}

DType CFamilyCodeGen::array_dtype(const ir::ArrayRef& a) const {
  if (a.space == ir::ArrayRef::Space::Shared) return k_->shared[static_cast<std::size_t>(a.index)].dtype;
  if (a.space == ir::ArrayRef::Space::Local) return k_->locals[static_cast<std::size_t>(a.index)].dtype;
  return k_->params[static_cast<std::size_t>(a.index)].dtype;
}

std::string CFamilyCodeGen::element(const ir::ArrayRef& a, const ir::Expr& index) {
  return array_name(a) + "[" + converted(index, DType::I64) + "]";
}

void CFamilyCodeGen::stmt(const ir::Stmt& s) {
  if (!s) return;
  auto assign = [&](const std::string& target, const ir::Expr& value, DType t) {
    begin_statement({&value});
    std::string v = converted(value, t);
    flush_temps();
    line(target + " = " + v + ";");
  };
  switch (s->kind) {
    case ir::StmtKind::Block:
      for (const ir::Stmt& c : s.as<ir::Block>()->stmts) stmt(c);
      return;
    case ir::StmtKind::Let: {
      const auto* n = s.as<ir::Let>();
      return assign(let_name(n->id), n->value, k_->lets[static_cast<std::size_t>(n->id)].dtype);
    }
    case ir::StmtKind::DeclareVar: {
      const auto* n = s.as<ir::DeclareVar>();
      return assign(var_name(n->id), n->init, k_->vars[static_cast<std::size_t>(n->id)].dtype);
    }
    case ir::StmtKind::Assign: {
      const auto* n = s.as<ir::Assign>();
      return assign(var_name(n->id), n->value, k_->vars[static_cast<std::size_t>(n->id)].dtype);
    }
    case ir::StmtKind::Store: {
      const auto* n = s.as<ir::Store>();
      begin_statement({&n->index, &n->value});
      std::string target = element(n->array, n->index);
      std::string v = converted(n->value, array_dtype(n->array));
      flush_temps();
      line(target + " = " + v + ";");
      return;
    }
    case ir::StmtKind::Atomic: return emit_atomic(s.as<ir::Atomic>());
    case ir::StmtKind::If: {
      const auto* n = s.as<ir::If>();
      begin_statement({&n->cond});
      std::string c = converted(n->cond, DType::Bool);
      flush_temps();
      line("if " + parenthesized(c) + " {");
      ++indent_;
      stmt(n->then_case);
      if (close_conditional_barrier_regions() && synchronizes(n->then_case)) line(barrier());
      --indent_;
      if (n->else_case) {
        line("} else {");
        ++indent_;
        stmt(n->else_case);
        if (close_conditional_barrier_regions() && synchronizes(n->else_case)) line(barrier());
        --indent_;
      }
      line("}");
      return;
    }
    case ir::StmtKind::For: {
      const auto* n = s.as<ir::For>();
      begin_statement({&n->lo, &n->hi});
      std::string lo = converted(n->lo, DType::I64);
      std::string hi = converted(n->hi, DType::I64);
      flush_temps();
      std::string end = "__end" + std::to_string(temp_count_++) + "__";
      std::string i = let_name(n->index);
      line("{");
      ++indent_;
      line("const " + type_name(DType::I64) + " " + end + " = " + hi + ";");
      line("for (" + i + " = " + lo + "; " + i + " < " + end + "; ++" + i + ") {");
      ++indent_;
      stmt(n->body);
      --indent_;
      line("}");
      --indent_;
      line("}");
      return;
    }
    case ir::StmtKind::Loop:
      line("for (;;) {");
      ++indent_;
      stmt(s.as<ir::Loop>()->body);
      --indent_;
      line("}");
      return;
    case ir::StmtKind::Break: line("break;"); return;
    case ir::StmtKind::Continue: line("continue;"); return;
    case ir::StmtKind::Barrier: line(barrier()); return;
    case ir::StmtKind::GroupReduce: return emit_group_reduce(s.as<ir::GroupReduce>());
    case ir::StmtKind::Print: TACK_UNREACHABLE("c_family: prints must be lowered by passes::lower_prints");
  }
  TACK_UNREACHABLE("c_family: unknown statement kind");
}

std::string CFamilyCodeGen::reduce_scratch(DType t) {
  auto [it, fresh] = reduce_scratch_.emplace(static_cast<int>(t), "");
  if (fresh) it->second = "tack_reduce_" + suffix(t);
  return it->second;
}

// A tree over the group's 256 work-items in its shared scratch; every work-item reads the result.
void CFamilyCodeGen::emit_group_reduce(const ir::GroupReduce* n) {
  DType t = n->value->type.dtype;
  TACK_CHECK(t != DType::Bool);
  std::string scratch = reduce_scratch(t);
  begin_statement({&n->value});
  std::string v = expr(n->value);
  flush_temps();
  line(scratch + "[__lid__] = " + v + ";");
  line(barrier());
  std::string a = scratch + "[__lid__]", b = scratch + "[__lid__ + __s__]";
  std::string combine;
  switch (n->op) {
    case ir::ReduceOp::Add:
      combine = is_float(t) ? "(" + a + " + " + b + ")"
                            : "(" + type_name(t) + ")((" + wide_unsigned(t) + ")" + a + " + (" + wide_unsigned(t) +
                                  ")" + b + ")";
      break;
    case ir::ReduceOp::Min: combine = min_max_helper(ir::OpCode::Min, t) + "(" + a + ", " + b + ")"; break;
    case ir::ReduceOp::Max: combine = min_max_helper(ir::OpCode::Max, t) + "(" + a + ", " + b + ")"; break;
  }
  line("for (int __s__ = " + std::to_string(kGpuGroupSize / 2) + "; __s__ > 0; __s__ >>= 1) {");
  ++indent_;
  line("if (__lid__ < __s__) " + a + " = " + combine + ";");
  line(barrier());
  --indent_;
  line("}");
  line(let_name(n->result) + " = " + cast(t, k_->lets[static_cast<std::size_t>(n->result)].dtype, scratch + "[0]") +
       ";");
  line(barrier());  // the scratch is reused by the next reduction
}

void CFamilyCodeGen::emit_atomic(const ir::Atomic* n) {
  begin_statement({&n->index, &n->value, &n->compare});
  DType t = array_dtype(n->array);
  TACK_CHECK(t != DType::Bool);
  std::string base = array_name(n->array);
  std::string index = converted(n->index, DType::I64);
  std::string v = converted(n->value, t);
  std::string c = n->compare ? converted(n->compare, t) : std::string();
  flush_temps();
  atomic_on_shared_ = n->array.space == ir::ArrayRef::Space::Shared;
  std::string old = dtype_bits(t) < 32 ? subword_atomic(n->op, t, base, index, v, c)
                                       : atomic(n->op, t, "(" + base + " + " + index + ")", v, c);
  atomic_on_shared_ = false;
  line(let_name(n->result) + " = " + cast(t, k_->lets[static_cast<std::size_t>(n->result)].dtype, old) + ";");
}

}  // namespace tack::codegen
