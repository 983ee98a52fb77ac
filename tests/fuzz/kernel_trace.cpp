// Traces a fuzz Program into a tack::Kernel: walks the tree and makes the same
// tack::lang calls as the C++ that to_cpp() prints.
#include "fuzz/kernel_generator.hpp"

#include <bit>
#include <memory>
#include <optional>
#include <stdexcept>

namespace tack::fuzz {
namespace {
using namespace tack::lang;
using Array = tack::lang::Array;  // not tack::Array

// A C++ value of the constant's dtype, as a weak literal (cast<T> then makes it strong).
Value literal(DType t, std::uint64_t b) {
  switch (t) {
    case DType::I8: return Value(static_cast<std::int8_t>(b));
    case DType::U8: return Value(static_cast<std::uint8_t>(b));
    case DType::I16: return Value(static_cast<std::int16_t>(b));
    case DType::U16: return Value(static_cast<std::uint16_t>(b));
    case DType::I32: return Value(static_cast<std::int32_t>(b));
    case DType::U32: return Value(static_cast<std::uint32_t>(b));
    case DType::I64: return Value(static_cast<std::int64_t>(b));
    case DType::U64: return Value(b);
    case DType::F32: return Value(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
    case DType::F64: return Value(std::bit_cast<double>(b));
    default: throw std::logic_error("fuzz: no literal of this dtype");
  }
}

struct Tracer {
  const Program& p;
  const Array* arr[5];
  const Scalar* s;
  Value i;
  std::vector<std::unique_ptr<Var>> vars;
  std::vector<std::optional<Value>> loops;
  const Group* g = nullptr;            // workgroup kernels
  std::optional<SharedArray> sh;

  Value e(const Expr& x) {
    auto k = [&](int n) { return e(x.kids[static_cast<std::size_t>(n)]); };
    switch (x.op) {
      case Op::Const: return cast(x.type, literal(x.type, x.bits));
      case Op::Index: return i;
      case Op::LoopIndex: return *loops.at(static_cast<std::size_t>(x.ref));
      case Op::VarRef: return vars.at(static_cast<std::size_t>(x.ref))->value();
      case Op::LoadIn: {
        const Array& a = *arr[2 + x.ref];
        return a[floormod(cast<i64>(k(0)), a.size())];
      }
      case Op::LoadOut: return (*arr[x.ref])[i];
      case Op::ScalarParam: return *s;
      case Op::LocalId: return g->local_id();
      case Op::GroupId: return g->group_id();
      case Op::SharedLoad:
        if (x.ref == 0) return (*sh)[g->local_id()];
        return (*sh)[floormod(cast<i64>(k(0)), kGroupSize)];
      case Op::Neg: return -k(0);
      case Op::BitNot: return ~k(0);
      case Op::Abs: return abs(k(0));
      case Op::Floor: return floor(k(0));
      case Op::Ceil: return ceil(k(0));
      case Op::Trunc: return trunc(k(0));
      case Op::Round: return round(k(0));
      case Op::Sqrt: return sqrt(k(0));
      case Op::Not: return !k(0);
      case Op::IsNan: return isnan(k(0));
      case Op::Cast: return cast(x.type, k(0));
      case Op::Add: return k(0) + k(1);
      case Op::Sub: return k(0) - k(1);
      case Op::Mul: return k(0) * k(1);
      case Op::Div: return k(0) / k(1);
      case Op::Rem: return k(0) % k(1);
      case Op::BitAnd: return k(0) & k(1);
      case Op::BitOr: return k(0) | k(1);
      case Op::BitXor: return k(0) ^ k(1);
      case Op::Shl: return k(0) << k(1);
      case Op::Shr: return k(0) >> k(1);
      case Op::Min: return min(k(0), k(1));
      case Op::Max: return max(k(0), k(1));
      case Op::FloorDiv: return floordiv(k(0), k(1));
      case Op::FloorMod: return floormod(k(0), k(1));
      case Op::LogAnd: return k(0) && k(1);
      case Op::LogOr: return k(0) || k(1);
      case Op::Eq: return k(0) == k(1);
      case Op::Ne: return k(0) != k(1);
      case Op::Lt: return k(0) < k(1);
      case Op::Le: return k(0) <= k(1);
      case Op::Gt: return k(0) > k(1);
      case Op::Ge: return k(0) >= k(1);
      case Op::Select: return select(k(0), k(1), k(2));
    }
    throw std::logic_error("fuzz: unknown op");
  }

  Value atomic(AtomicOp op, const Array& a, const Value& idx, const Value& v, const Expr& expected) {
    switch (op) {
      case AtomicOp::Add: return atomic_add(a, idx, v);
      case AtomicOp::Sub: return atomic_sub(a, idx, v);
      case AtomicOp::Min: return atomic_min(a, idx, v);
      case AtomicOp::Max: return atomic_max(a, idx, v);
      case AtomicOp::And: return atomic_and(a, idx, v);
      case AtomicOp::Or: return atomic_or(a, idx, v);
      case AtomicOp::Xor: return atomic_xor(a, idx, v);
      case AtomicOp::Exchange: return atomic_exchange(a, idx, v);
      case AtomicOp::Cas: return atomic_cas(a, idx, e(expected), v);
    }
    throw std::logic_error("fuzz: unknown atomic");
  }

  void block(const std::vector<Stmt>& b) {
    for (const auto& st : b) stmt(st);
  }

  void stmt(const Stmt& st) {
    auto var = [&](int id) -> Var& { return *vars.at(static_cast<std::size_t>(id)); };
    switch (st.kind) {
      case StmtKind::Store: (*arr[st.ref])[i] = e(st.a); break;
      case StmtKind::Decl: vars.at(static_cast<std::size_t>(st.ref)) = std::make_unique<Var>(e(st.a)); break;
      case StmtKind::Assign: var(st.ref) = e(st.a); break;
      case StmtKind::If:
        if (st.else_body.empty())
          if_(e(st.a), [&] { block(st.body); });
        else
          if_(e(st.a), [&] { block(st.body); }, [&] { block(st.else_body); });
        break;
      case StmtKind::For:
        for_range(0, e(st.a), [&](Index j) {
          loops.at(static_cast<std::size_t>(st.ref)) = j;
          block(st.body);
        });
        break;
      case StmtKind::While: {
        vars.at(static_cast<std::size_t>(st.ref)) = std::make_unique<Var>(cast<i32>(0));
        Var& w = var(st.ref);
        while_([&] { return w.value() < st.bound && e(st.a); },
               [&] {
                 w += 1;  // first, so a continue_ cannot skip it: the loop is bounded
                 block(st.body);
               });
        break;
      }
      case StmtKind::Break: if_(e(st.a), [] { break_(); }); break;
      case StmtKind::Continue: if_(e(st.a), [] { continue_(); }); break;
      case StmtKind::AtomicShared: {
        const Array& a = *arr[4];
        atomic(st.aop, a, floormod(cast<i64>(e(st.a)), a.size()), e(st.b), st.c);
        break;
      }
      case StmtKind::AtomicPrivate: {
        Value old = atomic(st.aop, *arr[st.ref], i, e(st.b), st.c);
        if (st.target >= 0) var(st.target) = cast(p.var_types.at(static_cast<std::size_t>(st.target)), old);
        break;
      }
      case StmtKind::Barrier: g->barrier(); break;
      case StmtKind::SharedStore: (*sh)[g->local_id()] = e(st.a); break;
      case StmtKind::Reduce: {
        Value v = e(st.a);
        Value r = st.aop == AtomicOp::Add ? g->reduce_add(v) : st.aop == AtomicOp::Min ? g->reduce_min(v) : g->reduce_max(v);
        vars.at(static_cast<std::size_t>(st.ref)) = std::make_unique<Var>(r);
        break;
      }
    }
  }
};

}  // namespace

void trace(const Program& p, lang::Array out0, lang::Array out1, lang::Array in0, lang::Array in1, lang::Array at0,
           lang::Scalar s) {
  if (p.workgroup) {
    workgroup_for(out0.size() / kGroupSize, [&](Group g) {
      Tracer t{p, {&out0, &out1, &in0, &in1, &at0}, &s, g.global_id(), {}, {}};
      t.g = &g;
      t.sh.emplace(g.shared(p.shared_type, kGroupSize));
      t.vars.resize(p.var_types.size());
      t.loops.resize(64);
      t.block(p.body);
    });
    return;
  }
  parallel_for(out0.size(), [&](Index i) {
    Tracer t{p, {&out0, &out1, &in0, &in1, &at0}, &s, i, {}, {}};
    t.vars.resize(p.var_types.size());
    t.loops.resize(64);
    t.block(p.body);
  });
}

tack::Kernel make_kernel(const Program& p) {
  return tack::kernel("fuzz_" + std::to_string(p.seed), tack::KernelOptions{.fp_contract = p.fp_contract},
                      [p](lang::Array out0, lang::Array out1, lang::Array in0, lang::Array in1, lang::Array at0,
                          lang::Scalar s) {
                        trace(p, out0, out1, in0, in1, at0, s);
                      });
}

}  // namespace tack::fuzz
