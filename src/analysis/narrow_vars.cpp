// i32_ranged_vars: i64 Vars whose values fit 32 bits, found by a fixpoint over their assignments (narrow_vars.hpp).
#include "analysis/narrow_vars.hpp"

#include "ir/visitor.hpp"

#include <cstdint>
#include <limits>
#include <unordered_map>

namespace tack::analysis {
namespace {
using namespace ir;

class Ranges {
 public:
  explicit Ranges(const Kernel& k) : narrow_(k.vars.size(), false) {
    for (std::size_t v = 0; v < k.vars.size(); ++v) narrow_[v] = k.vars[v].dtype == DType::I64;
    for_each_stmt(k.body, [&](const Stmt& s) {
      if (const auto* let = s.as<Let>()) lets_[let->id] = &let->value;
      if (const auto* loop = s.as<For>()) loops_[loop->index] = loop;
      if (const auto* decl = s.as<DeclareVar>()) values_.push_back({decl->id, &decl->init});
      if (const auto* assign = s.as<Assign>()) values_.push_back({assign->id, &assign->value});
    });
    // A Var stays narrow while everything it is given is: drop those given anything else until none drops.
    for (bool dropped = true; dropped;) {
      dropped = false;
      for (const auto& [var, value] : values_) {
        if (!narrow_[static_cast<std::size_t>(var)] || fits(*value, 0)) continue;
        narrow_[static_cast<std::size_t>(var)] = false;
        dropped = true;
      }
    }
  }

  std::vector<bool> result() const { return narrow_; }

 private:
  static constexpr int kMaxDepth = 16;

  static bool fits_i32(std::int64_t v) {
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
  }

  // Whether every value of e lies in 32 bits (signed).
  bool fits(const Expr& e, int depth) const {
    if (!e || depth > kMaxDepth) return false;
    if (is_integer(e->type.dtype) && dtype_bits(e->type.dtype) < 32) return true;
    if (e->type.dtype == DType::I32 || e->type.dtype == DType::Bool) return true;
    switch (e->kind) {
      case ExprKind::Const: return fits_i32(e.as<Const>()->i);
      case ExprKind::VarRef: return narrow_[static_cast<std::size_t>(e.as<VarRef>()->id)];
      case ExprKind::Cast: {
        // From an integer (or bool) that fits; a float's value may not.
        const Expr& from = e.as<Cast>()->value;
        return !is_float(from->type.dtype) && fits(from, depth + 1);
      }
      case ExprKind::Select:
        return fits(e.as<Select>()->if_true, depth + 1) && fits(e.as<Select>()->if_false, depth + 1);
      case ExprKind::Op: {
        const auto* op = e.as<Op>();
        return (op->op == OpCode::Min || op->op == OpCode::Max) && fits(op->args[0], depth + 1) &&
               fits(op->args[1], depth + 1);
      }
      case ExprKind::LetRef: {
        const int id = e.as<LetRef>()->id;
        // A loop's index lies in [lo, hi): in 32 bits where both bounds are.
        if (auto loop = loops_.find(id); loop != loops_.end())
          return fits(loop->second->lo, depth + 1) && fits(loop->second->hi, depth + 1);
        auto let = lets_.find(id);
        return let != lets_.end() && fits(*let->second, depth + 1);
      }
      default: return false;
    }
  }

  std::vector<bool> narrow_;
  std::unordered_map<int, const Expr*> lets_;
  std::unordered_map<int, const For*> loops_;
  std::vector<std::pair<int, const Expr*>> values_;
};

}  // namespace

std::vector<bool> i32_ranged_vars(const Kernel& typed) { return Ranges(typed).result(); }

}  // namespace tack::analysis
