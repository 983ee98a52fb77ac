// Makes a random Program from a seed (see kernel_generator.hpp for the rules
// that keep every generated kernel deterministic under DESIGN §4), and the
// structural checks the shrinker relies on.
#include "fuzz/kernel_generator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

namespace tack::fuzz {
namespace {

std::uint64_t mask_bits(DType t, std::uint64_t v) {
  int w = dtype_bits(t);
  return w >= 64 ? v : v & ((std::uint64_t{1} << w) - 1);
}
std::uint64_t float_bits(DType t, double v) {
  if (t == DType::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(v));
  return std::bit_cast<std::uint64_t>(v);
}

Expr leaf_const(DType t, std::uint64_t bits) {
  Expr e;
  e.op = Op::Const;
  e.type = t;
  e.bits = bits;
  return e;
}
Expr int_const(DType t, std::int64_t v) { return leaf_const(t, mask_bits(t, static_cast<std::uint64_t>(v))); }
Expr node(Op op, DType t, std::vector<Expr> kids) {
  Expr e;
  e.op = op;
  e.type = t;
  e.kids = std::move(kids);
  return e;
}
Expr cast_to(DType t, Expr e) { return e.type == t ? e : node(Op::Cast, t, {std::move(e)}); }

struct Gen {
  std::mt19937_64 rng;
  const GeneratorLimits& lim;
  Program& p;
  std::vector<std::vector<int>> var_scopes{{}};
  std::vector<int> loops;  // loop numbers in scope
  int loop_depth = 0;
  // Workgroup kernels (see the header's rules).
  bool uniform = true;                // every work-item of the group reaches this point together
  std::vector<bool> loop_uniform;     // per enclosing loop: its trip count is the same for the whole group
  std::vector<int> uniform_loops;     // loop numbers whose index is uniform
  unsigned shared = 0;                // accesses to sh since the last barrier: kWrote, kReadOthers
  int next_loop = 0;
  int stmts_left = 14;  // keeps kernels small: PoCL compile time grows with size

  Gen(std::uint64_t seed, const GeneratorLimits& l, Program& prog) : rng(seed * 0x9E3779B97F4A7C15ull + 1), lim(l), p(prog) {}

  static constexpr unsigned kWrote = 1, kReadOthers = 2;

  std::uint64_t u(std::uint64_t n) { return n ? rng() % n : 0; }
  bool chance(int pct) { return static_cast<int>(u(100)) < pct; }
  DType any_type() { return lim.dtypes[u(lim.dtypes.size())]; }
  DType int_type() {
    for (;;) {
      DType t = any_type();
      if (is_integer(t)) return t;
    }
  }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[u(v.size())]; }

  // A constant: often an edge value of the dtype, else a small or a random one.
  std::uint64_t const_bits(DType t) {
    if (is_float(t) && lim.differentiable) {
      const double tame[] = {0.5, -1.0, 1.5, 2.0, 0.25, -0.75, 3.0, 0.1};
      if (chance(50)) return float_bits(t, tame[u(std::size(tame))]);
      return float_bits(t, static_cast<double>(static_cast<std::int64_t>(u(4001)) - 2000) / 1000.0);
    }
    if (is_float(t)) {
      bool f32 = t == DType::F32;
      double denorm_min = f32 ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min();
      double norm_min = f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
      double big = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
      const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, denorm_min, -denorm_min * 3, norm_min,
                              big, -big, INFINITY, -INFINITY, NAN, 1e10, 16777217.0, 0.1, 2.5, 1e-3};
      if (chance(50)) return float_bits(t, edges[u(std::size(edges))]);
      if (chance(50)) return float_bits(t, static_cast<double>(static_cast<std::int64_t>(u(41)) - 20));
      return float_bits(t, std::ldexp(static_cast<double>(u(1u << 20)) - (1 << 19), static_cast<int>(u(80)) - 60));
    }
    int w = dtype_bits(t);
    std::uint64_t min_bits = is_signed_int(t) ? (std::uint64_t{1} << (w - 1)) : 0;
    std::uint64_t max_bits = is_signed_int(t) ? min_bits - 1 : mask_bits(t, ~std::uint64_t{0});
    switch (u(6)) {
      case 0: return pick(std::vector<std::uint64_t>{0, 1, mask_bits(t, ~std::uint64_t{0}), min_bits, max_bits});
      case 1: return mask_bits(t, rng());
      default: return mask_bits(t, static_cast<std::uint64_t>(static_cast<std::int64_t>(u(33)) - 16));
    }
  }

  std::vector<int> counters;  // while_ counters: read, never assigned, so every loop ends

  std::vector<int> visible_vars() const {
    std::vector<int> all;
    for (const auto& s : var_scopes) all.insert(all.end(), s.begin(), s.end());
    return all;
  }
  std::vector<int> assignable_vars() const {
    std::vector<int> all = visible_vars();
    std::erase_if(all, [&](int v) { return std::find(counters.begin(), counters.end(), v) != counters.end(); });
    return all;
  }

  Expr leaf(DType t) {
    if (t == DType::Bool) return node(pick(std::vector<Op>{Op::Lt, Op::Eq, Op::Ne, Op::Ge}), DType::Bool,
                                      {leaf(DType::I32), leaf(DType::I32)});
    for (;;) {
      // (The same draws as before for parallel_for kernels: their seeds keep their kernels.)
      switch (u(p.workgroup ? 10 : 8)) {
        case 0: return leaf_const(t, const_bits(t));
        case 1: { Expr e; e.op = Op::Index; e.type = DType::I64; return cast_to(t, e); }
        case 2: {
          if (loops.empty()) break;
          Expr e; e.op = Op::LoopIndex; e.type = DType::I64; e.ref = pick(loops); return cast_to(t, e);
        }
        case 3: case 4: {
          auto vars = visible_vars();
          if (vars.empty()) break;
          Expr e; e.op = Op::VarRef; e.ref = pick(vars); e.type = p.var_types[e.ref]; return cast_to(t, e);
        }
        case 5: {
          Expr e; e.op = Op::LoadIn; e.ref = static_cast<int>(u(2)); e.type = p.arrays[2 + e.ref];
          e.kids.push_back(chance(50) ? leaf(int_type()) : expr(int_type(), 1));
          return cast_to(t, e);
        }
        case 6: {
          if (lim.differentiable) break;  // an output read back: an in-place update reverse mode may refuse
          Expr e; e.op = Op::LoadOut; e.ref = static_cast<int>(u(2)); e.type = p.arrays[e.ref]; return cast_to(t, e); }
        case 7: { Expr e; e.op = Op::ScalarParam; e.type = p.scalar; return cast_to(t, e); }
        default: return cast_to(t, group_leaf());
      }
    }
  }

  // A leaf only workgroup kernels have: local_id, group_id, or a read of sh
  // (another work-item's slot only where that is race-free: see the header).
  Expr group_leaf() {
    Expr e;
    switch (u(3)) {
      case 0: e.op = Op::LocalId; e.type = DType::I64; return e;
      case 1: e.op = Op::GroupId; e.type = DType::I64; return e;
      default:
        e.op = Op::SharedLoad;
        e.type = p.shared_type;
        if (loop_depth == 0 && !(shared & kWrote) && chance(60)) {
          shared |= kReadOthers;
          e.ref = 1;
          e.kids.push_back(chance(50) ? leaf(int_type()) : expr(int_type(), 1));
        }
        return e;
    }
  }

  // A uniform expression: the same for every work-item of a group.
  Expr uniform_int(DType t, int depth) {
    if (depth <= 0 || chance(35)) {
      Expr e;
      switch (u(4)) {
        case 0: return leaf_const(t, const_bits(t));
        case 1: e.op = Op::ScalarParam; e.type = p.scalar; return cast_to(t, e);
        case 2: e.op = Op::GroupId; e.type = DType::I64; return cast_to(t, e);
        default:
          if (uniform_loops.empty()) return int_const(t, static_cast<std::int64_t>(u(5)));
          e.op = Op::LoopIndex; e.type = DType::I64; e.ref = pick(uniform_loops); return cast_to(t, e);
      }
    }
    return node(pick(std::vector<Op>{Op::Add, Op::Sub, Op::Mul, Op::BitAnd, Op::BitXor, Op::Min, Op::Max}), t,
                {uniform_int(t, depth - 1), uniform_int(t, depth - 1)});
  }
  Expr uniform_bool() {
    DType t = int_type();
    return node(pick(std::vector<Op>{Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}), DType::Bool,
                {uniform_int(t, 1), uniform_int(t, 1)});
  }

  // A dtype for the arrays of a no-contract kernel: float more often than any_type's draw, since float
  // arithmetic is what that mode is for.
  DType float_biased_type() {
    std::vector<DType> floats;
    for (DType t : lim.dtypes)
      if (is_float(t)) floats.push_back(t);
    return !floats.empty() && chance(60) ? pick(floats) : any_type();
  }

  // An operand of a no-contract product or its sum: most often a load of a float array (whose elements
  // have full mantissas there, see differential.cpp), so the product is inexact and a fused sum would show.
  Expr product_operand(DType t, int depth) {
    std::vector<int> floats;  // 0, 1: out0, out1; 2, 3: in0, in1
    for (int a = lim.differentiable ? 2 : 0; a < 4; ++a)  // the differentiation mode reads no output
      if (is_float(p.arrays[a])) floats.push_back(a);
    if (floats.empty() || chance(30)) return expr(t, depth);
    const int a = pick(floats);
    Expr e;
    e.type = p.arrays[a];
    if (a < 2) {
      e.op = Op::LoadOut;
      e.ref = a;
    } else {
      e.op = Op::LoadIn;
      e.ref = a - 2;
      e.kids.push_back(leaf(int_type()));
    }
    return cast_to(t, e);
  }

  // An expression of dtype t. No float product (see the header), except in the no-contract mode.
  Expr expr(DType t, int depth) {
    if (depth <= 0 || chance(25)) return leaf(t);
    int d = depth - 1;
    if (t == DType::Bool) {
      switch (u(6)) {
        case 0: return node(pick(std::vector<Op>{Op::LogAnd, Op::LogOr}), t, {expr(t, d), expr(t, d)});
        case 1: return node(Op::Not, t, {expr(t, d)});
        case 2: {
          DType f = chance(50) ? DType::F32 : DType::F64;
          if (std::find(lim.dtypes.begin(), lim.dtypes.end(), f) == lim.dtypes.end()) f = DType::F32;
          return node(Op::IsNan, t, {expr(f, d)});
        }
        default: {
          DType o = any_type();
          return node(pick(std::vector<Op>{Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}), t, {expr(o, d), expr(o, d)});
        }
      }
    }
    if (chance(10)) return node(Op::Cast, t, {expr(chance(20) ? DType::Bool : any_type(), d)});
    if (chance(8)) return node(Op::Select, t, {expr(DType::Bool, d), expr(t, d), expr(t, d)});
    if (is_float(t)) {
      // The no-contract mode's point: a*b + c and c - a*b, which any backend allowed to would fuse.
      if (!p.fp_contract && chance(30)) {
        Expr product = node(Op::Mul, t, {product_operand(t, d), product_operand(t, d)});
        if (chance(50)) return node(Op::Add, t, {std::move(product), product_operand(t, d)});
        return node(Op::Sub, t, {product_operand(t, d), std::move(product)});
      }
      if (chance(30))
        return node(pick(std::vector<Op>{Op::Neg, Op::Abs, Op::Floor, Op::Ceil, Op::Trunc, Op::Round, Op::Sqrt}), t,
                    {expr(t, d)});
      std::vector<Op> ops{Op::Add, Op::Sub, Op::Div, Op::Rem, Op::Min, Op::Max, Op::FloorDiv, Op::FloorMod};
      // Nothing may fuse: a product may stand anywhere, in sums above all (twice, so about one node in five).
      if (!p.fp_contract) ops.insert(ops.end(), {Op::Mul, Op::Mul});
      return node(pick(ops), t, {expr(t, d), expr(t, d)});
    }
    if (chance(20)) return node(pick(std::vector<Op>{Op::Neg, Op::BitNot, Op::Abs}), t, {expr(t, d)});
    return node(pick(std::vector<Op>{Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::BitAnd, Op::BitOr, Op::BitXor,
                                     Op::Shl, Op::Shr, Op::Min, Op::Max, Op::FloorDiv, Op::FloorMod}),
                t, {expr(t, d), expr(t, d)});
  }

  // The right side of a Var declaration or assignment: the one place a float
  // product may stand, alone, so it is rounded before any other use.
  Expr rhs(DType t) {
    if (is_float(t) && chance(35)) return node(Op::Mul, t, {expr(t, 2), expr(t, 2)});
    return expr(t, 3);
  }

  bool atomic_ok(DType t) const {
    return std::find(lim.atomic_dtypes.begin(), lim.atomic_dtypes.end(), t) != lim.atomic_dtypes.end();
  }

  std::vector<Stmt> block(int depth, int count) {
    std::vector<Stmt> out;
    var_scopes.emplace_back();
    for (int k = 0; k < count && stmts_left > 0; ++k) {
      --stmts_left;
      if (auto s = stmt(depth)) out.push_back(std::move(*s));
    }
    var_scopes.pop_back();
    return out;
  }

  int new_var(DType t) {
    p.var_types.push_back(t);
    return static_cast<int>(p.var_types.size()) - 1;
  }

  // A statement only workgroup kernels have, or a uniform if_/for_range (which may hold them).
  std::optional<Stmt> group_stmt(int depth) {
    Stmt s;
    int r = static_cast<int>(u(100));
    if (r < 25) {
      if (!uniform) return std::nullopt;
      s.kind = StmtKind::Barrier;
      if (loop_depth == 0) shared = 0;  // in a loop it may run no time: what came before still counts
    } else if (r < 50) {
      if (shared & kReadOthers) return std::nullopt;
      shared |= kWrote;  // first, so the value reads no other work-item's slot
      s.kind = StmtKind::SharedStore;
      s.a = expr(p.shared_type, 3);
    } else if (r < 68) {
      if (!uniform) return std::nullopt;
      DType t = int_type();
      s.kind = StmtKind::Reduce;
      s.aop = pick(std::vector<AtomicOp>{AtomicOp::Add, AtomicOp::Min, AtomicOp::Max});
      s.a = expr(t, 2);
      s.ref = new_var(t);
      var_scopes.back().push_back(s.ref);
    } else if (r < 84 && depth < 3 && uniform) {
      s.kind = StmtKind::If;
      s.uniform = true;
      s.a = uniform_bool();
      // The whole group takes the same branch: each starts from what came before.
      const unsigned entry = shared;
      s.body = block(depth + 1, 1 + static_cast<int>(u(3)));
      const unsigned after_then = shared;
      shared = entry;
      if (chance(40)) s.else_body = block(depth + 1, 1 + static_cast<int>(u(2)));
      shared |= after_then;
    } else if (depth < 3 && uniform) {
      s.kind = StmtKind::For;
      s.uniform = true;
      s.ref = next_loop++;
      s.a = chance(40) ? int_const(DType::I64, static_cast<std::int64_t>(u(4)))
                       : node(Op::FloorMod, DType::I64, {cast_to(DType::I64, uniform_int(int_type(), 1)), int_const(DType::I64, 4)});
      loops.push_back(s.ref);
      uniform_loops.push_back(s.ref);
      loop_uniform.push_back(true);
      ++loop_depth;
      s.body = block(depth + 1, 1 + static_cast<int>(u(3)));
      --loop_depth;
      loop_uniform.pop_back();
      uniform_loops.pop_back();
      loops.pop_back();
    } else {
      return std::nullopt;
    }
    return s;
  }

  // Runs gen with the work-items possibly apart (a condition or trip count that differs between them).
  template <class F>
  void diverged(F gen) {
    const bool was = uniform;
    uniform = false;
    gen();
    uniform = was;
  }

  std::optional<Stmt> stmt(int depth) {
    if (p.workgroup && chance(35))
      if (auto s = group_stmt(depth)) return s;
    Stmt s;
    int r = static_cast<int>(u(100));
    bool nest = depth < 3;
    if (r < 18) {
      s.kind = StmtKind::Store;
      s.ref = static_cast<int>(u(2));
      s.a = expr(chance(50) ? p.arrays[s.ref] : any_type(), 3);
    } else if (r < 36) {
      DType t = any_type();
      s.kind = StmtKind::Decl;
      s.a = rhs(t);
      s.ref = new_var(t);
      var_scopes.back().push_back(s.ref);
    } else if (r < 50) {
      auto vars = assignable_vars();
      if (vars.empty()) return std::nullopt;
      s.kind = StmtKind::Assign;
      s.ref = pick(vars);
      s.a = rhs(p.var_types[s.ref]);
    } else if (r < 60 && nest) {
      s.kind = StmtKind::If;
      s.a = expr(DType::Bool, 2);
      // Work-items may take both branches at once: the else branch's accesses to sh count with the then branch's.
      diverged([&] {
        s.body = block(depth + 1, 1 + static_cast<int>(u(3)));
        if (chance(40)) s.else_body = block(depth + 1, 1 + static_cast<int>(u(2)));
      });
    } else if (r < 67 && nest) {
      s.kind = StmtKind::For;
      s.ref = next_loop++;
      // Sometimes a fold of a float Var with min or max, over up to 47 iterations: the CPU probes those over
      // integer keys in vectors (codegen/llvm/llvm_min_max_folds.cpp).
      std::vector<int> floats;
      for (int v : assignable_vars())
        if (is_float(p.var_types[static_cast<std::size_t>(v)])) floats.push_back(v);
      const bool fold = !floats.empty() && chance(30);
      s.a = fold && chance(60) ? int_const(DType::I64, static_cast<std::int64_t>(u(48)))
            : chance(40)
                ? int_const(DType::I64, static_cast<std::int64_t>(u(4)))
                : node(Op::FloorMod, DType::I64, {cast_to(DType::I64, expr(int_type(), 1)), int_const(DType::I64, 4)});
      loops.push_back(s.ref);
      loop_uniform.push_back(false);
      ++loop_depth;
      if (fold) {
        Stmt assign;
        assign.kind = StmtKind::Assign;
        assign.ref = pick(floats);
        const DType t = p.var_types[static_cast<std::size_t>(assign.ref)];
        Expr self;
        self.op = Op::VarRef;
        self.ref = assign.ref;
        self.type = t;
        diverged([&] {
          Expr e = expr(t, 2);
          const Op op = chance(50) ? Op::Max : Op::Min;
          assign.a = chance(50) ? node(op, t, {self, e}) : node(op, t, {e, self});
        });
        s.body.push_back(std::move(assign));
      } else {
        diverged([&] { s.body = block(depth + 1, 1 + static_cast<int>(u(3))); });
      }
      --loop_depth;
      loop_uniform.pop_back();
      loops.pop_back();
    } else if (r < 77 && lim.differentiable) {
      return std::nullopt;  // while_, break_, continue_: refused by reverse mode
    } else if (r < 72 && nest) {
      s.kind = StmtKind::While;
      s.ref = new_var(DType::I32);
      s.bound = 1 + static_cast<int>(u(3));
      var_scopes.back().push_back(s.ref);
      counters.push_back(s.ref);
      s.a = expr(DType::Bool, 2);
      loop_uniform.push_back(false);
      ++loop_depth;
      diverged([&] { s.body = block(depth + 1, 1 + static_cast<int>(u(3))); });
      --loop_depth;
      loop_uniform.pop_back();
    } else if (r < 77 && loop_depth > 0) {
      s.kind = chance(50) ? StmtKind::Break : StmtKind::Continue;
      if (loop_uniform.back()) {
        // A loop that may hold a barrier: the whole group leaves or skips together.
        if (!uniform) return std::nullopt;
        s.a = uniform_bool();
        return s;
      }
      s.a = expr(DType::Bool, 2);
    } else if (r < 88 && atomic_ok(p.arrays[4])) {
      DType t = p.arrays[4];
      s.kind = StmtKind::AtomicShared;
      s.aop = p.shared_op;
      s.a = expr(int_type(), 2);
      if (lim.differentiable) {
        s.b = expr(t, 2);  // any float: the derivative checks allow for the order of the adds
      } else if (is_float(t) && (s.aop == AtomicOp::Add || s.aop == AtomicOp::Sub)) {
        // Small integers: every order of the adds gives the same exact sum.
        s.b = cast_to(t, node(Op::Sub, DType::I32,
                              {node(Op::FloorMod, DType::I32, {cast_to(DType::I32, expr(int_type(), 2)), int_const(DType::I32, 9)}),
                               int_const(DType::I32, 4)}));
      } else if (is_float(t)) {
        // min/max: -0.0 becomes +0.0, since min(-0.0, +0.0) may keep either.
        Expr e = expr(t, 2);
        s.b = node(Op::Select, t, {node(Op::Eq, DType::Bool, {e, leaf_const(t, 0)}), leaf_const(t, 0), e});
      } else {
        s.b = expr(t, 2);
      }
    } else if (atomic_ok(p.arrays[0]) || atomic_ok(p.arrays[1])) {
      s.kind = StmtKind::AtomicPrivate;
      s.ref = atomic_ok(p.arrays[0]) && (!atomic_ok(p.arrays[1]) || chance(50)) ? 0 : 1;
      DType t = p.arrays[s.ref];
      std::vector<AtomicOp> ops{AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max, AtomicOp::Exchange, AtomicOp::Cas};
      if (is_integer(t)) ops.insert(ops.end(), {AtomicOp::And, AtomicOp::Or, AtomicOp::Xor});
      if (lim.differentiable) ops = {AtomicOp::Add, AtomicOp::Sub};
      s.aop = pick(ops);
      s.b = expr(chance(60) ? t : any_type(), 2);
      if (s.aop == AtomicOp::Cas) {
        Expr cur; cur.op = Op::LoadOut; cur.ref = s.ref; cur.type = t;
        s.c = chance(50) ? cur : expr(t, 1);
      }
      auto vars = assignable_vars();
      if (!vars.empty() && chance(60) && !lim.differentiable) s.target = pick(vars);
    } else {
      return std::nullopt;
    }
    return s;
  }
};

void count_expr(const Expr& e, std::size_t& n) {
  ++n;
  for (const auto& k : e.kids) count_expr(k, n);
}

struct Checker {
  const Program& p;
  std::vector<std::vector<int>> vars{{}};
  std::vector<int> loops;
  int loop_depth = 0;
  bool ok = true;
  // Workgroup kernels: the rules of the header, checked again after the shrinker's edits.
  bool uniform = true;
  std::vector<bool> loop_uniform;
  std::vector<int> uniform_loops;
  unsigned shared = 0;  // Gen::kWrote | Gen::kReadOthers since the last barrier

  bool is_uniform(const Expr& e) const {
    switch (e.op) {
      case Op::Index: case Op::VarRef: case Op::LoadIn: case Op::LoadOut: case Op::LocalId: case Op::SharedLoad:
        return false;
      case Op::LoopIndex: return std::find(uniform_loops.begin(), uniform_loops.end(), e.ref) != uniform_loops.end();
      default:
        for (const auto& k : e.kids)
          if (!is_uniform(k)) return false;
        return true;
    }
  }
  template <class F>
  void with_uniform(bool u, F f) {
    const bool was = uniform;
    uniform = u;
    f();
    uniform = was;
  }

  bool visible(int v) const {
    for (const auto& s : vars)
      if (std::find(s.begin(), s.end(), v) != s.end()) return true;
    return false;
  }
  void expr(const Expr& e) {
    if (e.op == Op::VarRef && !visible(e.ref)) ok = false;
    if ((e.op == Op::LocalId || e.op == Op::GroupId || e.op == Op::SharedLoad) && !p.workgroup) ok = false;
    if (e.op == Op::SharedLoad && e.ref == 1) {
      if (loop_depth > 0 || (shared & Gen::kWrote)) ok = false;
      shared |= Gen::kReadOthers;
    }
    if (e.op == Op::LoopIndex && std::find(loops.begin(), loops.end(), e.ref) == loops.end()) ok = false;
    for (const auto& k : e.kids) expr(k);
  }
  void block(const std::vector<Stmt>& b) {
    vars.emplace_back();
    for (const auto& s : b) stmt(s);
    vars.pop_back();
  }
  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Decl: expr(s.a); vars.back().push_back(s.ref); break;
      case StmtKind::Assign: expr(s.a); if (!visible(s.ref)) ok = false; break;
      case StmtKind::If: {
        expr(s.a);
        if (s.uniform && !(uniform && is_uniform(s.a))) ok = false;
        if (!s.uniform) {
          with_uniform(false, [&] { block(s.body); block(s.else_body); });
          break;
        }
        const unsigned entry = shared;
        block(s.body);
        const unsigned after_then = shared;
        shared = entry;
        block(s.else_body);
        shared |= after_then;
        break;
      }
      case StmtKind::For:
        expr(s.a);
        if (s.uniform && !(uniform && is_uniform(s.a))) ok = false;
        loops.push_back(s.ref);
        if (s.uniform) uniform_loops.push_back(s.ref);
        loop_uniform.push_back(s.uniform);
        ++loop_depth;
        with_uniform(uniform && s.uniform, [&] { block(s.body); });
        --loop_depth;
        loop_uniform.pop_back();
        if (s.uniform) uniform_loops.pop_back();
        loops.pop_back();
        break;
      case StmtKind::While:
        vars.back().push_back(s.ref);
        expr(s.a);
        loop_uniform.push_back(false);
        ++loop_depth;
        with_uniform(false, [&] { block(s.body); });
        --loop_depth;
        loop_uniform.pop_back();
        break;
      case StmtKind::Break: case StmtKind::Continue:
        expr(s.a);
        if (loop_depth == 0) ok = false;
        else if (loop_uniform.back() && !(uniform && is_uniform(s.a))) ok = false;
        break;
      case StmtKind::Barrier:
        if (!p.workgroup || !uniform) ok = false;
        if (loop_depth == 0) shared = 0;
        break;
      case StmtKind::SharedStore:
        if (!p.workgroup || (shared & Gen::kReadOthers)) ok = false;
        shared |= Gen::kWrote;
        expr(s.a);
        break;
      case StmtKind::Reduce:
        if (!p.workgroup || !uniform || !is_integer(s.a.type)) ok = false;
        expr(s.a);
        vars.back().push_back(s.ref);
        break;
      case StmtKind::AtomicPrivate:
        expr(s.b);
        if (s.aop == AtomicOp::Cas) expr(s.c);
        if (s.target >= 0 && !visible(s.target)) ok = false;
        break;
      case StmtKind::AtomicShared: expr(s.a); expr(s.b); break;
      case StmtKind::Store: expr(s.a); break;
    }
  }
};

void count_stmts(const std::vector<Stmt>& b, std::size_t& n) {
  for (const auto& s : b) {
    ++n;
    for (const Expr* e : {&s.a, &s.b, &s.c}) count_expr(*e, n);
    count_stmts(s.body, n);
    count_stmts(s.else_body, n);
  }
}

}  // namespace

Program generate(std::uint64_t seed, const GeneratorLimits& limits, bool fp_contract) {
  Program p;
  p.seed = seed;
  p.fp_contract = fp_contract;
  Gen g(seed, limits, p);
  for (int a = 0; a < 5; ++a) p.arrays[a] = fp_contract || a == 4 ? g.any_type() : g.float_biased_type();
  p.scalar = g.any_type();
  p.scalar_bits = g.const_bits(p.scalar);
  p.shared_op = is_float(p.arrays[4])
                    ? g.pick(std::vector<AtomicOp>{AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max})
                    : g.pick(std::vector<AtomicOp>{AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max,
                                                   AtomicOp::And, AtomicOp::Or, AtomicOp::Xor});
  // A third of the seeds (by number, so the others keep the kernels they always had) are workgroup kernels.
  p.workgroup = limits.workgroups && seed % 3 == 0;
  if (p.workgroup) {
    p.n = kGroupSize * static_cast<std::int64_t>(1 + g.u(2));
    do p.shared_type = g.any_type();
    while (p.shared_type == DType::Bool);
  }
  if (limits.differentiable) {
    for (DType& a : p.arrays) a = DType::F64;
    p.scalar = DType::F64;
    p.scalar_bits = g.const_bits(p.scalar);
    p.shared_op = AtomicOp::Add;
    p.workgroup = false;
    p.n = 16;
  }
  g.stmts_left = 4 + static_cast<int>(g.u(11));
  p.body = g.block(0, g.stmts_left);
  return p;
}

bool well_formed(const Program& p) {
  Checker c{p};
  c.block(p.body);
  return c.ok;
}

std::size_t program_size(const Program& p) {
  std::size_t n = 0;
  count_stmts(p.body, n);
  return n;
}

}  // namespace tack::fuzz
