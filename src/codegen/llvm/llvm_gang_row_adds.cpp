// The CPU code generator's SIMD path, plain adds into one row: consecutive plain atomic adds or subs (row_scatter.hpp)
// whose lanes reach elements of one row fewer than a gang apart, as a stencil's adjoint makes them (in(i + 1, j + 2),
// then in(i + 1, j)), run as one. One at a time, each would load a vector overlapping one just stored, by the
// access before it or by the gang before, which store-to-load forwarding cannot serve: the load waits for the store
// to reach the cache, and half the Jacobi adjoint's time went there.
//
// At the top of the kernel body, where the row runs once per gang and nothing reads the adds' old values, the gang
// loads and stores one vector, the elements from its lowest access's first lane on (window 0); what its accesses
// add past that window waits in registers for the next gang, whose window 0 it is, and the row's last gang adds it
// to memory after the loop. Elsewhere every access's old vector is loaded before any is stored, each store adding
// the others' values shifted to its elements. Either way an element gets what the accesses one after another give
// it, in their order, except that the adds a gang carries to the next come before the next gang's own (atomic
// adds' order is not part of their contract: docs/semantics.md).
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <llvm/IR/Constants.h>

#include <algorithm>
#include <unordered_set>
#include <vector>

namespace tack::codegen::detail {

using llvm::Value;

namespace {

constexpr std::size_t kMaxRowAdds = 8;  // each store adds every access's shifted values

ir::OpCode op_of(const ir::Atomic* n) { return n->op == ir::AtomicOp::Sub ? ir::OpCode::Sub : ir::OpCode::Add; }

// What adds nothing: -0 for an add (x + -0 is x, for x = -0 too), +0 for a sub.
llvm::Constant* nothing(const ir::Atomic* n, llvm::Type* scalar) {
  return llvm::ConstantFP::get(scalar, n->op == ir::AtomicOp::Sub ? 0.0 : -0.0);
}

}  // namespace

// A plain add on consecutive elements.
bool KernelEmitter::row_add(const ir::Stmt& s) {
  const auto* n = s.as<ir::Atomic>();
  return n && row_scatter_add(n) && lanes_->lane_stride(n->index) == 1;
}

// How many statements from stmts[first] run as one row of adds (0 where none do): two or more adds, and the Lets
// between them, which run first (a Let never reads what a plain add writes: row_scatter.hpp).
std::size_t KernelEmitter::row_adds(const std::vector<ir::Stmt>& stmts, std::size_t first) {
  if (!gang_ || !row_add(stmts[first])) return 0;
  const auto* head = stmts[first].as<ir::Atomic>();
  const auto place = places_.row_place(head->index, head->subscripts, head->array.index);
  if (!place) return 0;
  std::unordered_set<int> results{head->result};
  auto reads_a_result = [&](std::initializer_list<const ir::Expr*> exprs) {
    bool reads = false;
    std::unordered_set<const ir::ExprNode*> seen;
    for (const ir::Expr* e : exprs)
      ir::walk(*e, seen, [&](const ir::Expr& x) {
        if (auto r = x.as<ir::LetRef>()) reads |= results.count(r->id) > 0;
      });
    return reads;
  };
  std::int64_t lo = place->offset, hi = place->offset;
  std::size_t adds = 1, end = first + 1;
  for (std::size_t k = first + 1; k < stmts.size() && adds < kMaxRowAdds; ++k) {
    if (const auto* let = stmts[k].as<ir::Let>()) {
      if (reads_a_result({&let->value})) break;
      continue;
    }
    if (!row_add(stmts[k])) break;
    const auto* a = stmts[k].as<ir::Atomic>();
    if (a->array.index != head->array.index) break;
    const auto p = places_.row_place(a->index, a->subscripts, a->array.index);
    if (!p || p->row != place->row || p->dim != place->dim) break;
    if (std::max(hi, p->offset) - std::min(lo, p->offset) >= static_cast<std::int64_t>(gang_)) break;
    if (reads_a_result({&a->index, &a->value})) break;  // computed before the row's first add
    results.insert(a->result);
    lo = std::min(lo, p->offset);
    hi = std::max(hi, p->offset);
    ++adds;
    end = k + 1;
  }
  return adds > 1 ? end - first : 0;
}

// Lane l of the result is lane l + shift of v, or `fill` where that is no lane.
Value* KernelEmitter::lanes_from(Value* v, std::int64_t shift, Value* fill) {
  if (shift == 0) return v;
  const auto gang = static_cast<std::int64_t>(gang_);
  std::vector<int> lanes(gang_);
  for (std::int64_t l = 0; l < gang; ++l)
    lanes[static_cast<std::size_t>(l)] = static_cast<int>(l + shift >= 0 && l + shift < gang ? l + shift : gang);
  return b_.CreateShuffleVector(v, splat(fill), lanes);
}

// The rows of adds at the top of the kernel body that carry from gang to gang: their registers, made in the entry
// block once and emptied before each row.
void KernelEmitter::plan_row_carries() {
  const auto* body = k_.body.as<ir::Block>();
  if (!gang_ || !body || k_.launch != ir::LaunchKind::Parallel) return;
  const std::unordered_set<int> read = ir::lets_read(k_.body);
  for (std::size_t i = 0; i < body->stmts.size(); ++i) {
    const std::size_t n = row_adds(body->stmts, i);
    if (n == 0) continue;
    bool unread = true;
    for (std::size_t k = i; k < i + n; ++k)
      if (const auto* a = body->stmts[k].as<ir::Atomic>()) unread &= read.count(a->result) == 0;
    if (unread) {
      llvm::BasicBlock& entry = fn_->getEntryBlock();
      llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
      RowCarry carry;
      llvm::Type* vt = vec(value_type(c_, array_dtype(body->stmts[i].as<ir::Atomic>()->array)));
      for (std::size_t k = i; k < i + n; ++k)
        if (const auto* a = body->stmts[k].as<ir::Atomic>()) {
          carry.adds.push_back(a);
          carry.carried.push_back(eb.CreateAlloca(vt, nullptr, "carried"));
        }
      carry.reach = mask_slot();
      carry.at = eb.CreateAlloca(eb.getPtrTy(), nullptr, "carried.at");
      row_carries_.emplace_back(body->stmts[i].get(), std::move(carry));
    }
    i += n - 1;
  }
}

// Before a row: nothing carried.
void KernelEmitter::begin_row_carries() {
  for (auto& [head, carry] : row_carries_) {
    b_.CreateStore(no_lanes(), carry.reach);
    for (std::size_t k = 0; k < carry.adds.size(); ++k) {
      llvm::Type* vt = carry.carried[k]->getAllocatedType();
      b_.CreateStore(splat(nothing(carry.adds[k], vt->getScalarType())), carry.carried[k]);
    }
  }
}

// After a row: what its last gang carried, added to memory.
void KernelEmitter::end_row_carries() {
  for (auto& [head, carry] : row_carries_) {
    const DType t = array_dtype(carry.adds.front()->array);
    llvm::Type* vt = vec(memory_type(c_, t));
    Value* reach = b_.CreateLoad(exec_->getAllocatedType(), carry.reach);
    llvm::BasicBlock* add = block("carried.add");
    llvm::BasicBlock* done = block("carried.done");
    b_.CreateCondBr(any(reach), add, done);
    b_.SetInsertPoint(add);
    Value* ptr = b_.CreateLoad(b_.getPtrTy(), carry.at);
    Value* sum =
        from_memory(b_, t, b_.CreateMaskedLoad(vt, ptr, element_align(t), reach, llvm::Constant::getNullValue(vt)));
    for (std::size_t k = 0; k < carry.adds.size(); ++k) {
      Value* args[2] = {sum, b_.CreateLoad(carry.carried[k]->getAllocatedType(), carry.carried[k])};
      sum = emit_op(b_, op_of(carry.adds[k]), t, args, false);
    }
    b_.CreateMaskedStore(to_memory(b_, t, sum), ptr, element_align(t), reach);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }
}

// The `count` statements from stmts[first] (row_adds): the Lets, then the adds under one test of whether every lane
// runs.
void KernelEmitter::gang_row_adds(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count) {
  struct Add {
    const ir::Atomic* n;
    std::int64_t offset;
    Value* first;  // the address of lane 0's element
    Value* value;  // in the array's register type, a vector
    Value* none;   // what adds nothing
  };
  std::vector<Add> adds;
  const DType t = array_dtype(stmts[first].as<ir::Atomic>()->array);
  lets_then_adds(stmts, first, count, [&](const ir::Atomic* n) {
    Value* index = converted(n->index, DType::I64);
    Value* value = splat(converted(n->value, t));
    Value* at = element_ptr(n->array, b_.CreateExtractElement(index, uint64_t{0}));
    const auto place = places_.row_place(n->index, n->subscripts, n->array.index);
    adds.push_back({n, place->offset, at, value, nothing(n, value->getType()->getScalarType())});
  });
  const auto carry = std::find_if(row_carries_.begin(), row_carries_.end(),
                                  [&](const auto& c) { return c.first == stmts[first].get(); });
  llvm::Type* vt = vec(memory_type(c_, t));
  const llvm::Align align = element_align(t);
  Value* mask = exec();
  auto add_to = [&](Value* sum, const Add& a, Value* v) {
    Value* args[2] = {sum, v};
    return emit_op(b_, op_of(a.n), t, args, false);
  };
  auto load = [&](bool every, Value* ptr, Value* lanes) -> Value* {
    if (every) return b_.CreateAlignedLoad(vt, ptr, align);
    return b_.CreateMaskedLoad(vt, ptr, align, lanes, llvm::Constant::getNullValue(vt));
  };
  auto store = [&](bool every, Value* v, Value* ptr, Value* lanes) {
    if (every)
      b_.CreateAlignedStore(v, ptr, align);
    else
      b_.CreateMaskedStore(v, ptr, align, lanes);
  };
  by_lanes_running(mask, [&](bool every) -> Value* {
    std::vector<Value*> adding;  // each access's values, nothing in the lanes not running
    for (const Add& a : adds) adding.push_back(every ? a.value : b_.CreateSelect(mask, a.value, splat(a.none)));
    if (carry == row_carries_.end()) {
      std::vector<Value*> old;
      for (const Add& a : adds) old.push_back(load(every, a.first, mask));
      for (std::size_t k = 0; k < adds.size(); ++k) {
        Value* sum = from_memory(b_, t, old[k]);
        for (std::size_t m = 0; m < adds.size(); ++m) {
          if (m == k) b_.CreateStore(emit_cast(b_, t, let_dtype(adds[k].n->result), sum), let_slot(adds[k].n->result));
          sum = add_to(sum, adds[m], lanes_from(adding[m], adds[k].offset - adds[m].offset, adds[m].none));
        }
        store(every, to_memory(b_, t, sum), adds[k].first, mask);
      }
      return nullptr;
    }
    // Window 0 starts at the lowest access's first lane; access m's lane l is its lane l + d, d = offset - lowest.
    const auto lowest =
        std::min_element(adds.begin(), adds.end(), [](const Add& x, const Add& y) { return x.offset < y.offset; });
    const auto gang = static_cast<std::int64_t>(gang_);
    Value* window = lowest->first;
    Value* no = b_.getFalse();
    Value* reach0 = nullptr;  // the lanes of window 0 and of window 1 some running lane reaches
    Value* reach1 = nullptr;
    for (const Add& a : adds) {
      const std::int64_t d = a.offset - lowest->offset;
      Value* r0 = lanes_from(mask, -d, no);
      Value* r1 = lanes_from(mask, gang - d, no);
      reach0 = reach0 ? b_.CreateOr(reach0, r0) : r0;
      reach1 = reach1 ? b_.CreateOr(reach1, r1) : r1;
    }
    Value* carried_reach = b_.CreateLoad(exec_->getAllocatedType(), carry->second.reach);
    Value* lanes = every ? nullptr : b_.CreateOr(reach0, carried_reach);
    Value* sum = from_memory(b_, t, load(every, window, lanes));
    for (std::size_t m = 0; m < adds.size(); ++m)
      sum = add_to(sum, adds[m], b_.CreateLoad(vec(adding[m]->getType()->getScalarType()), carry->second.carried[m]));
    for (std::size_t m = 0; m < adds.size(); ++m)
      sum = add_to(sum, adds[m], lanes_from(adding[m], lowest->offset - adds[m].offset, adds[m].none));
    store(every, to_memory(b_, t, sum), window, lanes);
    for (std::size_t m = 0; m < adds.size(); ++m)
      b_.CreateStore(lanes_from(adding[m], lowest->offset - adds[m].offset + gang, adds[m].none),
                     carry->second.carried[m]);
    b_.CreateStore(reach1, carry->second.reach);
    // Past the array where nothing is carried: not inbounds.
    b_.CreateStore(b_.CreateGEP(memory_type(c_, t), window, b_.getInt64(gang)), carry->second.at);
    return nullptr;
  });
}

}  // namespace tack::codegen::detail
