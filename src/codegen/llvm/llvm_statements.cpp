// The CPU code generator's statements: stores and Let/Var slots, atomics
// (atomicrmw, cmpxchg, and a compare-exchange loop for float min and max), and
// control flow as basic blocks (if, counted for, loop with break and continue).
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "analysis/min_max_folds.hpp"
#include "codegen/llvm/llvm_ops.hpp"
#include "codegen/statement_uses.hpp"
#include "ir/check.hpp"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Instructions.h>

namespace tack::codegen::detail {

using llvm::BasicBlock;
using llvm::Value;

// Starts a statement whose expression trees are `roots`: a fresh per-statement
// value cache, and the products that may contract.
void KernelEmitter::begin_statement(std::initializer_list<const ir::Expr*> roots) {
  cache_.clear();
  contract_ = statement_uses(roots, k_.fp_contract).fusible;
}

void KernelEmitter::stmt(const ir::Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case ir::StmtKind::Block: return emit_block(s.as<ir::Block>()->stmts, 0);
    case ir::StmtKind::Let: {
      const auto* n = s.as<ir::Let>();
      begin_statement({&n->value});
      // A Let's value is the SSA value itself: its uses are all in its scope, which its definition dominates.
      Value* v = converted(n->value, let_dtype(n->id));
      if (gang_ && lanes_->let_varying(n->id)) v = splat(v);
      let_values_ssa_[static_cast<std::size_t>(n->id)] = v;
      return;
    }
    case ir::StmtKind::DeclareVar: {
      const auto* n = s.as<ir::DeclareVar>();
      begin_statement({&n->init});
      llvm::AllocaInst* slot = var_slot(n->id);
      b_.CreateStore(shaped_for(slot, to_var(n->id, converted(n->init, var_dtype(n->id)))), slot);
      return;
    }
    case ir::StmtKind::Assign: {
      const auto* n = s.as<ir::Assign>();
      begin_statement({&n->value});
      llvm::AllocaInst* slot = var_slot(n->id);
      Value* v = shaped_for(slot, to_var(n->id, converted(n->value, var_dtype(n->id))));
      // A varying Var keeps its value in the lanes not running here.
      if (holds_vec(slot) && lanes_->assign_masked(s.get()))
        v = b_.CreateSelect(exec(), v, b_.CreateLoad(slot->getAllocatedType(), slot));
      b_.CreateStore(v, slot);
      return;
    }
    case ir::StmtKind::Store: return gang_ ? gang_store(s.as<ir::Store>()) : emit_store(s.as<ir::Store>());
    case ir::StmtKind::Atomic: return gang_ ? gang_atomic(s.as<ir::Atomic>()) : emit_atomic(s.as<ir::Atomic>());
    case ir::StmtKind::If: return emit_if(s.as<ir::If>());
    case ir::StmtKind::For:
      if (gang_ && lanes_->work_item_index(s.as<ir::For>()->index)) return gang_items(s.as<ir::For>());
      if (gang_ && lanes_->divergent_loop(s.get())) return gang_for(s.as<ir::For>());
      return emit_for(s.as<ir::For>());
    case ir::StmtKind::Loop:
      if (gang_ && lanes_->divergent_loop(s.get())) return gang_loop(s.as<ir::Loop>());
      return emit_loop(s.as<ir::Loop>());
    case ir::StmtKind::Break:
    case ir::StmtKind::Continue: {
      TACK_CHECK(!loops_.empty());
      const bool is_break = s->kind == ir::StmtKind::Break;
      if (loops_.back().continued) return gang_escape(is_break);
      b_.CreateBr(is_break ? loops_.back().exit : loops_.back().next);
      dead_block();
      return;
    }
    case ir::StmtKind::Barrier:
    case ir::StmtKind::GroupReduce:
      TACK_UNREACHABLE("llvm_gen: barriers and group reductions must be lowered by passes::lower_workgroups");
    case ir::StmtKind::Print: TACK_UNREACHABLE("llvm_gen: prints must be lowered by passes::lower_prints");
  }
  TACK_UNREACHABLE("llvm_gen: unknown statement kind");
}

// v as `slot` holds it: splat into a varying Let's or Var's vector slot.
Value* KernelEmitter::shaped_for(llvm::AllocaInst* slot, Value* v) {
  TACK_CHECK(!is_vec(v) || holds_vec(slot));  // the uniformity analysis and the values agree
  return holds_vec(slot) ? splat(v) : v;
}

// A block's statements from `from` on. On the SIMD path, in a divergent loop, the
// lanes that reach a Break or Continue leave: nothing after it in the block runs,
// and after a statement some lanes may have left through, the rest runs only
// while any lane remains where it must (a uniform load or store there runs
// exactly when some work-item reaches it, as on the scalar path); masked work
// needs no test.
void KernelEmitter::emit_block(const std::vector<ir::Stmt>& stmts, std::size_t from) {
  auto rest_needs_a_lane = [this](const std::vector<ir::Stmt>& all, std::size_t first) {
    for (std::size_t j = first; j < all.size(); ++j)
      if (needs_a_lane(all[j])) return true;
    return false;
  };
  for (std::size_t i = from; i < stmts.size(); ++i) {
    const ir::Stmt& s = stmts[i];
    const bool masked = gang_ && !loops_.empty() && loops_.back().continued;
    if (const std::size_t adds = gang_ ? row_adds(stmts, i) : 0; adds > 1) {
      gang_row_adds(stmts, i, adds);
      i += adds - 1;
      continue;
    }
    if (const std::size_t run = gang_ ? private_adds_run(stmts, i) : 0; run > 0) {
      gang_private_adds(stmts, i, run);
      i += run - 1;
      continue;
    }
    if (gang_ && i + 1 < stmts.size() && read_then_write(s, stmts[i + 1])) {
      gang_read_then_write(s.as<ir::Let>(), stmts[i + 1].as<ir::Store>());
      ++i;
      continue;
    }
    stmt(s);
    if (!masked) continue;
    if (s->kind == ir::StmtKind::Break || s->kind == ir::StmtKind::Continue) return;
    if (i + 1 < stmts.size() && analysis::LaneUniformity::escapes(s) && rest_needs_a_lane(stmts, i + 1)) {
      BasicBlock* rest = block("lanes.rest");
      BasicBlock* done = block("lanes.done");
      b_.CreateCondBr(any(exec()), rest, done);
      b_.SetInsertPoint(rest);
      emit_block(stmts, i + 1);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return;
    }
  }
}

// Code after a Break or Continue is unreachable; it goes to a block of its own.
void KernelEmitter::dead_block() { b_.SetInsertPoint(BasicBlock::Create(c_, "dead", fn_)); }

Value* KernelEmitter::element_ptr(const ir::ArrayRef& a, const ir::Expr& index) {
  return element_ptr(a, converted(index, DType::I64));
}

// The element's address at an I64 index, or a vector of addresses at a vector of indices.
Value* KernelEmitter::element_ptr(const ir::ArrayRef& a, Value* index) {
  return b_.CreateInBoundsGEP(memory_type(c_, array_dtype(a)), array_base(a), index);
}

// old = *ptr; do { new = f(old) } while (!cmpxchg(ptr, old, new)); returns the value replaced.
template <class F>
Value* KernelEmitter::cas_loop(Value* ptr, DType t, llvm::Align align, F&& f) {
  llvm::Type* ty = value_type(c_, t);
  llvm::Type* bits = b_.getIntNTy(static_cast<unsigned>(dtype_bits(t)));
  llvm::LoadInst* first = b_.CreateAlignedLoad(bits, ptr, align);
  first->setAtomic(llvm::AtomicOrdering::Monotonic);
  BasicBlock* pre = b_.GetInsertBlock();
  BasicBlock* loop = block("atomic.loop");
  BasicBlock* done = block("atomic.done");
  b_.CreateBr(loop);
  b_.SetInsertPoint(loop);
  llvm::PHINode* cur = b_.CreatePHI(bits, 2);
  cur->addIncoming(first, pre);
  Value* next = b_.CreateBitCast(f(b_.CreateBitCast(cur, ty)), bits);
  Value* pair =
      b_.CreateAtomicCmpXchg(ptr, cur, next, align, llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  cur->addIncoming(b_.CreateExtractValue(pair, 0), loop);
  b_.CreateCondBr(b_.CreateExtractValue(pair, 1), done, loop);
  b_.SetInsertPoint(done);
  return b_.CreateBitCast(cur, ty);
}

void KernelEmitter::emit_store(const ir::Store* n) {
  begin_statement({&n->index, &n->value});
  DType t = array_dtype(n->array);
  Value* ptr = element_ptr(n->array, n->index);
  Value* v = to_memory(b_, t, converted(n->value, t));
  b_.CreateAlignedStore(v, ptr, element_align(t));
}

void KernelEmitter::emit_atomic(const ir::Atomic* n) {
  begin_statement({&n->index, &n->value, &n->compare});
  DType t = array_dtype(n->array);
  TACK_CHECK(t != DType::Bool);
  Value* ptr = element_ptr(n->array, n->index);
  Value* v = converted(n->value, t);
  Value* compare = n->op == ir::AtomicOp::Cas ? converted(n->compare, t) : nullptr;
  b_.CreateStore(emit_cast(b_, t, let_dtype(n->result), atomic_at(n, ptr, v, compare)), let_slot(n->result));
}

// An add or sub that the row schedule makes safe as a plain read-modify-write (analysis/row_scatter.hpp).
bool KernelEmitter::row_scatter_add(const ir::Atomic* n) const {
  const auto p = static_cast<std::size_t>(n->array.index);
  return n->array.space == ir::ArrayRef::Space::Param && p < plain_atomics_.size() && plain_atomics_[p] &&
         (n->op == ir::AtomicOp::Add || n->op == ir::AtomicOp::Sub);
}

// An add or sub into the running thread's private copy of its array (analysis/private_adds.hpp).
bool KernelEmitter::private_add(const ir::Atomic* n) const {
  const auto p = static_cast<std::size_t>(n->array.index);
  return n->array.space == ir::ArrayRef::Space::Param && p < private_adds_.size() && private_adds_[p] &&
         (n->op == ir::AtomicOp::Add || n->op == ir::AtomicOp::Sub);
}

// An add or sub that runs as a plain read-modify-write: a row scatter's, or one into the thread's private copy.
bool KernelEmitter::plain_atomic(const ir::Atomic* n) const { return private_add(n) || row_scatter_add(n); }

// n's add or sub as a plain read, add and write of the element at ptr; returns the old value.
Value* KernelEmitter::plain_add_at(const ir::Atomic* n, Value* ptr, Value* v) {
  const DType t = array_dtype(n->array);
  Value* old = from_memory(b_, t, b_.CreateAlignedLoad(memory_type(c_, t), ptr, element_align(t)));
  Value* args[2] = {old, v};
  Value* sum = emit_op(b_, n->op == ir::AtomicOp::Add ? ir::OpCode::Add : ir::OpCode::Sub, t, args, false);
  b_.CreateAlignedStore(to_memory(b_, t, sum), ptr, element_align(t));
  return old;
}

// The atomic operation of n on the element at ptr with operand v (and for Cas, compare); returns the old value.
Value* KernelEmitter::atomic_at(const ir::Atomic* n, Value* ptr, Value* v, Value* compare) {
  if (plain_atomic(n)) return plain_add_at(n, ptr, v);
  DType t = array_dtype(n->array);
  llvm::Align align = element_align(t);
  const auto mono = llvm::AtomicOrdering::Monotonic;
  const bool fl = is_float(t), sig = is_signed_int(t);
  using RMW = llvm::AtomicRMWInst::BinOp;
  auto rmw = [&](RMW op) -> Value* { return b_.CreateAtomicRMW(op, ptr, v, align, mono); };
  Value* old = nullptr;
  switch (n->op) {
    case ir::AtomicOp::Add: old = rmw(fl ? RMW::FAdd : RMW::Add); break;
    case ir::AtomicOp::Sub: old = rmw(fl ? RMW::FSub : RMW::Sub); break;
    case ir::AtomicOp::And:
      TACK_CHECK(!fl);
      old = rmw(RMW::And);
      break;
    case ir::AtomicOp::Or:
      TACK_CHECK(!fl);
      old = rmw(RMW::Or);
      break;
    case ir::AtomicOp::Xor:
      TACK_CHECK(!fl);
      old = rmw(RMW::Xor);
      break;
    case ir::AtomicOp::Exchange: old = rmw(RMW::Xchg); break;
    case ir::AtomicOp::Min:
    case ir::AtomicOp::Max: {
      bool mn = n->op == ir::AtomicOp::Min;
      if (!fl) {
        old = rmw(mn ? (sig ? RMW::Min : RMW::UMin) : (sig ? RMW::Max : RMW::UMax));
      } else {
        // atomicrmw fmin/fmax are llvm.minnum/maxnum, which may return either zero for (+0, -0): a
        // compare-exchange loop computes the operator exactly as scalar_ops does.
        old = cas_loop(ptr, t, align, [&](Value* cur) {
          Value* args[2] = {cur, v};
          return emit_op(b_, mn ? ir::OpCode::Min : ir::OpCode::Max, t, args, false);
        });
      }
      break;
    }
    case ir::AtomicOp::Cas: {
      // Compare and store on the bit pattern, as the interpreter compares Bits.
      llvm::Type* bits = b_.getIntNTy(static_cast<unsigned>(dtype_bits(t)));
      Value* expect = b_.CreateBitCast(compare, bits);
      Value* pair = b_.CreateAtomicCmpXchg(ptr, expect, b_.CreateBitCast(v, bits), align,
                                           llvm::AtomicOrdering::SequentiallyConsistent,
                                           llvm::AtomicOrdering::SequentiallyConsistent);
      old = b_.CreateBitCast(b_.CreateExtractValue(pair, 0), value_type(c_, t));
      break;
    }
  }
  return old;
}

void KernelEmitter::emit_if(const ir::If* n) {
  begin_statement({&n->cond});
  Value* c = converted(n->cond, DType::Bool);
  if (is_vec(c)) return gang_if(n, c);
  BasicBlock* then_bb = block("if.then");
  BasicBlock* else_bb = n->else_case ? block("if.else") : nullptr;
  BasicBlock* merge = block("if.end");
  b_.CreateCondBr(c, then_bb, else_bb ? else_bb : merge);
  b_.SetInsertPoint(then_bb);
  stmt(n->then_case);
  b_.CreateBr(merge);
  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    stmt(n->else_case);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

// for (i = lo; i < hi; ++i), lo and hi evaluated once; Continue goes to the increment.
void KernelEmitter::emit_for(const ir::For* n) {
  begin_statement({&n->lo, &n->hi});
  Value* lo = converted(n->lo, DType::I64);
  Value* hi = converted(n->hi, DType::I64);
  if (!gang_)
    if (std::optional<analysis::MinMaxFold> fold = analysis::min_max_fold(*n, k_))
      return emit_min_max_fold(n, *fold, lo, hi);
  emit_counted_for(n, lo, hi);
}

void KernelEmitter::emit_counted_for(const ir::For* n, Value* lo, Value* hi) {
  CountedLoop loop(b_, kForNames, lo, "i" + std::to_string(n->index));
  llvm::PHINode* i = loop.counter();
  b_.CreateCondBr(b_.CreateICmpSLT(i, hi), loop.body(), loop.exit());
  b_.SetInsertPoint(loop.body());
  b_.CreateStore(i, let_slot(n->index));
  loops_.push_back({loop.exit(), loop.latch()});
  stmt(n->body);
  loops_.pop_back();
  b_.CreateBr(loop.latch());
  b_.SetInsertPoint(loop.latch());
  // i < hi <= INT64_MAX, so the increment cannot overflow: nsw is exact, never poison.
  loop.close(b_.CreateNSWAdd(i, b_.getInt64(1)));
}

// Repeats until a Break; Continue starts the next iteration.
void KernelEmitter::emit_loop(const ir::Loop* n) {
  BasicBlock* body = block("loop.body");
  BasicBlock* exit = block("loop.end");
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  loops_.push_back({exit, body});
  stmt(n->body);
  loops_.pop_back();
  b_.CreateBr(body);
  b_.SetInsertPoint(exit);
}

}  // namespace tack::codegen::detail
