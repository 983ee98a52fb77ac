// The CPU code generator's SIMD path, its control flow under the execution
// mask. An if_ on a varying condition runs each side with the lanes that take
// it, skipping a side no lane takes; a divergent loop runs while any lane is
// active, a break_ clears the lanes that reach it until the loop ends and a
// continue_ until the next iteration. Uniform conditions and loops whose lanes
// stay together branch as on the scalar path (llvm_statements.cpp).
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"
#include "ir/walk.hpp"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace tack::codegen::detail {

using llvm::BasicBlock;
using llvm::Value;

// Whether s must not run when no lane is running: it reads or writes memory at a
// uniform index (scalar accesses, unmasked), or is a loop that would spin for
// no lane. Masked vector work, divergent loops and varying if_s test the mask
// themselves.
bool KernelEmitter::needs_a_lane(const ir::Stmt& s) const {
  if (!s) return false;
  switch (s->kind) {
    case ir::StmtKind::Block:
      for (const ir::Stmt& c : s.as<ir::Block>()->stmts)
        if (needs_a_lane(c)) return true;
      return false;
    case ir::StmtKind::Let: {
      // A Load is only ever the whole value of a Let.
      const auto* load = s.as<ir::Let>()->value.as<ir::Load>();
      return load && !lanes_->varying(load->index);
    }
    case ir::StmtKind::Store: {
      const auto* n = s.as<ir::Store>();
      return !lanes_->varying(n->index) && !lanes_->varying(n->value);
    }
    case ir::StmtKind::If: {
      const auto* n = s.as<ir::If>();
      return !lanes_->varying_if(s.get()) || needs_a_lane(n->then_case) || needs_a_lane(n->else_case);
    }
    case ir::StmtKind::For:
    case ir::StmtKind::Loop: return !lanes_->divergent_loop(s.get());
    default: return false;
  }
}

// The lanes that continued in the innermost loop's iteration, parked until its latch.
Value* KernelEmitter::continued_lanes() {
  llvm::AllocaInst* slot = loops_.back().continued;
  return b_.CreateLoad(slot->getAllocatedType(), slot);
}

void KernelEmitter::park(Value* lanes) {
  b_.CreateStore(b_.CreateOr(continued_lanes(), lanes), loops_.back().continued);
}

// Whether a side is a few selects' worth of work that reads no memory, calls nothing and divides nothing (k-means'
// `best_d = d; best = c`): running it for no lane costs less than a branch on whether any lane takes it, which the
// lanes' data decide and the predictor often misses (bench kmeans_noatomic).
bool KernelEmitter::cheaper_than_a_branch(const ir::Stmt& side) {
  constexpr std::size_t kMaxStatements = 4;
  const ir::Block* block = side.as<ir::Block>();
  const std::vector<ir::Stmt> one{side};
  const std::vector<ir::Stmt>& stmts = block ? block->stmts : one;
  if (stmts.size() > kMaxStatements) return false;
  bool pure = true;
  for (const ir::Stmt& s : stmts) {
    if (!s || (s->kind != ir::StmtKind::Assign && s->kind != ir::StmtKind::Let)) return false;
    std::unordered_set<const ir::ExprNode*> seen;
    for (const ir::Expr& root : ir::own_exprs(s))
      ir::walk(root, seen, [&](const ir::Expr& e) {
        const auto* op = e.as<ir::Op>();
        const bool costly =
            op && (ir::is_transcendental(op->op) || op->op == ir::OpCode::Div || op->op == ir::OpCode::Mod ||
                   op->op == ir::OpCode::FloorDiv || op->op == ir::OpCode::FloorMod);
        pure = pure && e->kind != ir::ExprKind::Load && e->kind != ir::ExprKind::TexSample && !costly;
      });
  }
  return pure;
}

// Runs `side` with `lanes`, skipping it when none is set (unless that costs more than running it); returns the
// lanes still running after it (less those that left through a break_ or continue_).
Value* KernelEmitter::run_side(Value* lanes, const ir::Stmt& side, const char* name, const char* end_name) {
  if (cheaper_than_a_branch(side) && !needs_a_lane(side)) {
    set_exec(lanes);
    stmt(side);
    return exec();
  }
  BasicBlock* run = block(name);
  BasicBlock* done = block(end_name);
  set_exec(lanes);
  b_.CreateCondBr(any(lanes), run, done);
  b_.SetInsertPoint(run);
  stmt(side);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return exec();
}

// An if_ on a varying condition. `if_(c, break_)` and `if_(c, continue_)`, the
// shape of every while_ condition, only clear lanes: no branch at all.
void KernelEmitter::gang_if(const ir::If* n, Value* cond) {
  Value* before = exec();
  const ir::Stmt* only = &n->then_case;
  if (const auto* b = only->as<ir::Block>(); b && b->stmts.size() == 1) only = &b->stmts[0];
  const bool escape = (*only)->kind == ir::StmtKind::Break || (*only)->kind == ir::StmtKind::Continue;
  if (escape && !n->else_case && !loops_.empty() && loops_.back().continued) {
    if ((*only)->kind == ir::StmtKind::Continue) park(b_.CreateAnd(before, cond));
    set_exec(b_.CreateAnd(before, b_.CreateNot(cond)));
    return;
  }
  Value* taken = b_.CreateAnd(before, cond);
  Value* other = b_.CreateAnd(before, b_.CreateNot(cond));
  Value* after = run_side(taken, n->then_case, "if.then", "if.then.end");
  after = b_.CreateOr(after, n->else_case ? run_side(other, n->else_case, "if.else", "if.end") : other);
  set_exec(after);
}

// A divergent loop's body with `continued` as its parking slot; leaves the insert
// point at `latch`, where the parked lanes have rejoined.
void KernelEmitter::masked_body(const ir::Stmt& body, BasicBlock* exit, BasicBlock* latch,
                                llvm::AllocaInst* continued) {
  b_.CreateStore(no_lanes(), continued);
  loops_.push_back({exit, latch, continued});
  stmt(body);
  b_.CreateBr(latch);
  b_.SetInsertPoint(latch);
  set_exec(b_.CreateOr(exec(), continued_lanes()));
  loops_.pop_back();
}

void KernelEmitter::gang_loop(const ir::Loop* n) {
  Value* entry = exec();
  llvm::AllocaInst* continued = mask_slot();
  BasicBlock* head = block("loop.head");
  BasicBlock* body = block("loop.body");
  BasicBlock* latch = block("loop.next");
  BasicBlock* exit = block("loop.end");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  b_.CreateCondBr(any(exec()), body, exit);
  b_.SetInsertPoint(body);
  masked_body(n->body, exit, latch, continued);
  b_.CreateBr(head);
  b_.SetInsertPoint(exit);
  set_exec(entry);  // every lane that entered comes out
}

// for (i = lo; i < hi; ++i) with lo and hi evaluated once: with varying bounds i
// is a vector and each lane leaves when its own count ends.
void KernelEmitter::gang_for(const ir::For* n) {
  begin_statement({&n->lo, &n->hi});
  Value* lo = converted(n->lo, DType::I64);
  Value* hi = converted(n->hi, DType::I64);
  const bool varying_bounds = is_vec(lo) || is_vec(hi);
  if (varying_bounds) lo = splat(lo), hi = splat(hi);
  Value* entry = exec();
  llvm::AllocaInst* continued = mask_slot();
  CountedLoop loop(b_, kForNames, lo, "i" + std::to_string(n->index));
  llvm::PHINode* i = loop.counter();
  Value* go;
  if (varying_bounds) {
    Value* active = b_.CreateAnd(exec(), b_.CreateICmpSLT(i, hi));
    set_exec(active);
    go = any(active);
  } else {
    go = b_.CreateAnd(b_.CreateICmpSLT(i, hi), any(exec()));
  }
  b_.CreateCondBr(go, loop.body(), loop.exit());
  b_.SetInsertPoint(loop.body());
  llvm::AllocaInst* index = let_slot(n->index);
  b_.CreateStore(shaped_for(index, i), index);
  masked_body(n->body, loop.exit(), loop.latch(), continued);
  // Lanes past their bound keep counting, harmlessly: they no longer run.
  loop.close(b_.CreateAdd(i, llvm::ConstantInt::get(i->getType(), 1)));
  set_exec(entry);
}

// A loop over a group's work-items (workgroup kernels, passes/lower_workgroups):
// whole gangs with every lane running. The group size is a multiple of every
// gang width, so there is no partial gang, and the first local id of a gang is
// a multiple of its width (LaneUniformity's gang_block and gang_offset).
void KernelEmitter::gang_items(const ir::For* n) {
  const auto* lo = n->lo.as<ir::Const>();
  const auto* hi = n->hi.as<ir::Const>();
  TACK_CHECK(lo && hi && lo->i == 0 && hi->i > 0 && hi->i % gang_ == 0);
  BasicBlock* body = block("items.body");
  BasicBlock* exit = block("items.end");
  CountedLoop loop(b_, body, exit, b_.getInt64(0), "item");
  llvm::PHINode* i = loop.counter();
  llvm::AllocaInst* index = let_slot(n->index);
  b_.CreateStore(b_.CreateAdd(splat(i), lane_ids(), "local_id"), index);
  set_exec(llvm::Constant::getAllOnesValue(exec_->getAllocatedType()));
  stmt(n->body);
  Value* next = b_.CreateAdd(i, b_.getInt64(gang_));
  no_vectorize(loop.close(next, b_.CreateICmpSLT(next, b_.getInt64(hi->i))));
}

// `lid / D`, the same for every lane of a gang: computed once from the gang's first lane.
Value* KernelEmitter::gang_block(const ir::Op* n) {
  Value* lid = expr(n->args[0]);
  if (is_vec(lid)) lid = b_.CreateExtractElement(lid, std::uint64_t{0});
  Value* args[3] = {lid, expr(n->args[1]), nullptr};
  TACK_CHECK(!is_vec(args[1]));
  return emit_op(b_, n->op, n->args[0]->type.dtype, args, false);
}

// The running lanes leave the loop (break_) or this iteration (continue_); nothing after it runs for them.
void KernelEmitter::gang_escape(bool is_break) {
  if (!is_break) park(exec());
  set_exec(no_lanes());
}

}  // namespace tack::codegen::detail
