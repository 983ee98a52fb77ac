// Common-subexpression elimination by hash-consing each statement's expressions.
#include "passes/cse.hpp"

#include "ir/memo_mutator.hpp"
#include "ir/scalar_ops.hpp"

#include <array>
#include <cstdint>
#include <unordered_map>

namespace tack::passes {
namespace {

using namespace tack::ir;

// A node's identity up to sharing. Children are compared by pointer: they are already
// the canonical node of their class, so pointer equality is structural equality and a
// key is built in constant time.
struct Key {
  ExprKind kind;
  Type type;
  std::uint64_t a = 0;  // the node's own fields: constant bits, op, param, id, ...
  std::int64_t b = 0;
  std::array<const ExprNode*, 3> children{};
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.kind) | static_cast<std::uint64_t>(k.type.kind) << 8 |
                      static_cast<std::uint64_t>(k.type.dtype) << 16;
    auto mix = [&h](std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdULL;
    };
    mix(k.a);
    mix(static_cast<std::uint64_t>(k.b));
    for (const ExprNode* c : k.children) mix(reinterpret_cast<std::uintptr_t>(c));
    return static_cast<std::size_t>(h ^ (h >> 33));
  }
};

Key key_of(const Expr& e) {
  Key k{e->kind, e->type};
  switch (e->kind) {
    // By bits: -0.0 and 0.0, or two NaNs with different payloads, are different values.
    case ExprKind::Const: k.a = const_bits(e.as<Const>()); break;
    case ExprKind::ScalarParam: k.a = static_cast<std::uint64_t>(e.as<ScalarParam>()->param); break;
    case ExprKind::ArrayDim:
      k.a = static_cast<std::uint64_t>(e.as<ArrayDim>()->param);
      k.b = e.as<ArrayDim>()->dim;
      break;
    case ExprKind::LoopIndex: k.a = static_cast<std::uint64_t>(e.as<LoopIndex>()->dim); break;
    case ExprKind::GroupValue: k.a = static_cast<std::uint64_t>(e.as<GroupValue>()->field); break;
    case ExprKind::LetRef: k.a = static_cast<std::uint64_t>(e.as<LetRef>()->id); break;
    // A statement's expressions are evaluated without anything assigning in between,
    // so two reads of one Var in the same statement read the same value.
    case ExprKind::VarRef: k.a = static_cast<std::uint64_t>(e.as<VarRef>()->id); break;
    case ExprKind::Load: break;  // never keyed: see mutate()
    case ExprKind::Op: {
      auto n = e.as<Op>();
      k.a = static_cast<std::uint64_t>(n->op);
      for (int i = 0; i < 3; ++i) k.children[i] = n->args[i].get();
      break;
    }
    case ExprKind::Select: {
      auto n = e.as<Select>();
      k.children = {n->cond.get(), n->if_true.get(), n->if_false.get()};
      break;
    }
    case ExprKind::Cast: k.children[0] = e.as<Cast>()->value.get(); break;
    case ExprKind::TexSample: {
      auto n = e.as<TexSample>();
      k.a = static_cast<std::uint64_t>(n->param);
      k.children = {n->u.get(), n->v.get(), n->w.get()};
      break;
    }
  }
  return k;
}

class CommonSubexpressions : public MemoMutator {
 public:
  using MemoMutator::mutate;

  // Every statement starts afresh. §4 decides contraction per statement, so a node
  // shared with another statement would count there as a second use, and merging
  // expressions across statements is forwarding values, which only Lets may do.
  // A statement's own expressions are all visited before its nested statements.
  Stmt mutate(const Stmt& s) override {
    start_afresh();
    return IRMutator::mutate(s);
  }

  void start_afresh() {
    forget();
    table_.clear();
  }

 protected:
  // Rebuilds e over canonical children, then returns the first node of its class seen
  // in this statement. An unchanged node with no earlier equal is returned as itself.
  Expr rewrite(const Expr& e) override {
    Expr r = MemoMutator::rewrite(e);
    // A Load is a read at one point of the program, never a value to share; it is
    // also only ever a Let's whole value, so there is nothing to share it with.
    if (!r.as<Load>()) r = table_.emplace(key_of(r), r).first->second;
    return r;
  }

 private:
  std::unordered_map<Key, Expr, KeyHash> table_;  // class -> canonical node
};

}  // namespace

ir::Kernel cse(const ir::Kernel& k) {
  CommonSubexpressions m;
  ir::Kernel out = k;
  for (ir::Expr& d : out.dims) {
    m.start_afresh();
    d = m.mutate(d);
  }
  out.body = m.mutate(k.body);
  return out;
}

}  // namespace tack::passes
