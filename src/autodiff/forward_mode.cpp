// The tangent pass: one walk over the statements, each float Let and Var followed by its tangent, computed
// from the operands' tangents with the derivative rules (derivatives.hpp).
#include "autodiff/forward_mode.hpp"

#include "autodiff/analysis.hpp"
#include "autodiff/derivatives.hpp"
#include "ir/check.hpp"
#include "ir/walk.hpp"

#include <unordered_map>

namespace tack::autodiff {
namespace {
using namespace ir;

class Forward {
 public:
  explicit Forward(const Kernel& primal) : k_(primal) {
    (void)analyze(primal, Mode::Forward);
    tangent_param_ = gradient_params(k_);
    tangent_local_.assign(k_.locals.size(), -1);
    for (size_t l = 0; l < tangent_local_.size(); ++l)
      if (differentiable(k_.locals[l].dtype)) {
        k_.locals.push_back(k_.locals[l]);
        tangent_local_[l] = static_cast<int>(k_.locals.size() - 1);
      }
  }

  Kernel run() {
    k_.body = transform(k_.body);
    k_.derivative = Derivative::None;
    return std::move(k_);
  }

 private:
  int new_let(Type t) { return autodiff::new_let(k_, t); }
  int new_var(int original) {
    const auto& names = k_.var_names;
    const std::string name =
        static_cast<size_t>(original) < names.size() && !names[static_cast<size_t>(original)].empty()
            ? names[static_cast<size_t>(original)] + ".tangent"
            : "";
    return autodiff::new_var(k_, k_.vars[static_cast<size_t>(original)], name);
  }
  Type let_type(int id) const { return k_.lets[static_cast<size_t>(id)]; }
  Type var_type(int id) const { return k_.vars[static_cast<size_t>(id)]; }

  // The tangent of a float expression (null for zero), node by node so a shared value is differentiated once.
  Expr tangent(const Expr& e, std::unordered_map<const ExprNode*, Expr>& memo) {
    if (!differentiable(e)) return {};
    auto hit = memo.find(e.get());
    if (hit != memo.end()) return hit->second;
    const FloatMath m{e->type.dtype};
    Expr out;
    switch (e->kind) {
      case ExprKind::LetRef: {
        auto it = tangent_let_.find(e.as<LetRef>()->id);
        if (it != tangent_let_.end()) out = LetRef::make(e->type, it->second);
        break;
      }
      case ExprKind::VarRef: {
        auto it = tangent_var_.find(e.as<VarRef>()->id);
        if (it != tangent_var_.end()) out = VarRef::make(e->type, it->second);
        break;
      }
      case ExprKind::Op: {
        auto n = e.as<Op>();
        const auto parts = partials(*n, e);
        for (int a = 0; a < n->arity(); ++a)
          if (parts[static_cast<size_t>(a)])
            out = m.add(out, m.mul(parts[static_cast<size_t>(a)], tangent(n->args[static_cast<size_t>(a)], memo)));
        break;
      }
      case ExprKind::Select: {
        auto n = e.as<Select>();
        out = m.select(n->cond, tangent(n->if_true, memo), tangent(n->if_false, memo));
        break;
      }
      case ExprKind::Cast: {
        Expr inner = tangent(e.as<Cast>()->value, memo);
        if (inner) out = Cast::make(e->type, inner);
        break;
      }
      case ExprKind::TexSample: {
        auto n = e.as<TexSample>();
        const auto parts = texture_partials(*n);
        const Expr coords[3] = {n->u, n->v, n->w};
        for (int a = 0; a < 3; ++a) out = m.add(out, m.mul(parts[static_cast<size_t>(a)], tangent(coords[a], memo)));
        break;
      }
      default: break;  // constants and scalar parameters are held fixed
    }
    memo.emplace(e.get(), out);
    return out;
  }
  Expr tangent_or_zero(const Expr& e) {
    std::unordered_map<const ExprNode*, Expr> memo;
    Expr t = tangent(e, memo);
    return t ? t : FloatMath{e->type.dtype}.constant(0);
  }

  Stmt transform(const Stmt& s) {
    std::vector<Stmt> out;
    for (const Stmt& item : block_items(s)) emit(item, out);
    return Block::make(std::move(out), s ? s->loc : SourceLoc{});
  }

  // The tangent array of array parameter p where it has one and holds floats, else -1.
  ArrayRef tangent_ref(const ArrayRef& a) const {
    return a.space == ArrayRef::Space::Local
               ? ArrayRef{ArrayRef::Space::Local, tangent_local_[static_cast<size_t>(a.index)]}
               : ArrayRef{ArrayRef::Space::Param, tangent_array(a)};
  }
  int tangent_array(const ArrayRef& a) const {
    if (a.space == ArrayRef::Space::Local) return tangent_local_[static_cast<size_t>(a.index)];
    if (a.space != ArrayRef::Space::Param) return -1;
    const int t = tangent_param_[static_cast<size_t>(a.index)];
    return t >= 0 && differentiable(k_.params[static_cast<size_t>(a.index)].dtype) ? t : -1;
  }

  void emit(const Stmt& s, std::vector<Stmt>& out) {
    switch (s->kind) {
      case StmtKind::Let: {
        auto n = s.as<Let>();
        out.push_back(s);
        if (!differentiable(let_type(n->id).dtype)) break;
        const int id = new_let(let_type(n->id));
        if (auto load = n->value.as<Load>()) {
          const int t = tangent_array(load->array);
          out.push_back(Let::make(id,
                                  t >= 0
                                      ? Load::make(load->type, tangent_ref(load->array), load->index, load->subscripts)
                                      : FloatMath{load->type.dtype}.constant(0),
                                  s->loc));
        } else {
          out.push_back(Let::make(id, tangent_or_zero(n->value), s->loc));
        }
        tangent_let_[n->id] = id;
        break;
      }
      case StmtKind::DeclareVar: {
        auto n = s.as<DeclareVar>();
        out.push_back(s);
        if (!differentiable(var_type(n->id).dtype)) break;
        const int id = new_var(n->id);
        out.push_back(DeclareVar::make(id, tangent_or_zero(n->init), s->loc));
        tangent_var_[n->id] = id;
        break;
      }
      case StmtKind::Assign: {
        auto n = s.as<Assign>();
        auto it = tangent_var_.find(n->id);
        if (it == tangent_var_.end()) {
          out.push_back(s);
          break;
        }
        // The tangent reads the operands' values before the assignment changes them.
        const int held = new_let(var_type(n->id));
        out.push_back(Let::make(held, tangent_or_zero(n->value), s->loc));
        out.push_back(s);
        out.push_back(Assign::make(it->second, LetRef::make(var_type(n->id), held), s->loc));
        break;
      }
      case StmtKind::Store: {
        auto n = s.as<Store>();
        out.push_back(s);
        const int t = tangent_array(n->array);
        if (t >= 0)
          out.push_back(Store::make(tangent_ref(n->array), n->index, n->subscripts, tangent_or_zero(n->value), s->loc));
        break;
      }
      case StmtKind::Atomic: {
        auto n = s.as<Atomic>();
        out.push_back(s);
        const int t = tangent_array(n->array);
        if (t >= 0)
          out.push_back(Atomic::make(n->op, ArrayRef{ArrayRef::Space::Param, t}, n->index, n->subscripts,
                                     tangent_or_zero(n->value), {}, new_let(n->value->type), s->loc));
        break;
      }
      case StmtKind::If: {
        auto n = s.as<If>();
        out.push_back(
            If::make(n->cond, transform(n->then_case), n->else_case ? transform(n->else_case) : Stmt{}, s->loc));
        break;
      }
      case StmtKind::For: {
        auto n = s.as<For>();
        out.push_back(For::make(n->index, n->lo, n->hi, transform(n->body), s->loc));
        break;
      }
      case StmtKind::Loop: out.push_back(Loop::make(transform(s.as<Loop>()->body), s->loc)); break;
      default: out.push_back(s); break;  // break, continue, print
    }
  }

  Kernel k_;
  std::vector<int> tangent_param_;
  std::vector<int> tangent_local_;  // by local array: its tangent's local array, or -1 (not float)
  std::unordered_map<int, int> tangent_let_, tangent_var_;
};

}  // namespace

Kernel jvp(const Kernel& typed) { return Forward(typed).run(); }

}  // namespace tack::autodiff
