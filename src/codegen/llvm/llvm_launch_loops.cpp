// The CPU code generator's launch loops around the kernel body: one counted
// loop over [start, end) for 1-D launches; for N-D launches `start` decomposed
// into indices once, then rows of the innermost dimension as counted loops,
// carrying into the outer indices between rows. On the SIMD path each
// iteration runs a gang of work-items of the innermost dimension, the last one
// of a row or chunk with only the lanes still inside it.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "ir/check.hpp"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Metadata.h>

#include <string>

namespace tack::codegen::detail {

using llvm::BasicBlock;
using llvm::Value;

// The innermost dimension from lo to hi (lo < hi), loop_index_'s outer entries bound.
// Scalar path: one work-item per iteration. SIMD path: one gang per iteration,
// its mask the lanes still below hi (every lane but in the last gang). One copy
// of the body, where a constant-mask copy for whole gangs and a masked one for
// the rest doubled what LLVM compiles: the copy cost LBM about 40% of its
// compile time and bought no measured run time on AVX-512, whose masked loads and
// stores cost what plain ones do (bench/RESULTS.md, "Cold compile of the SIMD path").
// AVX2's masked stores cost many times plain ones on AMD hosts: each contiguous
// access tests the mask instead (llvm_gang_memory.cpp, by_lanes_running).
void KernelEmitter::emit_row(Value* lo, Value* hi) {
  BasicBlock* done = block("row.done");
  // A workgroup kernel runs one group per iteration; its gangs are in the group's work-item loops.
  if (!gang_ || k_.launch == ir::LaunchKind::Workgroup) {
    CountedLoop loop(b_, block("par.body"), done, lo, "idx");
    loop_index_.back() = loop.counter();
    stmt(k_.body);
    Value* next = b_.CreateNSWAdd(loop.counter(), b_.getInt64(1));
    loop.close(next, b_.CreateICmpSLT(next, hi));
    return;
  }
  TACK_CHECK((gang_ & (gang_ - 1)) == 0);
  Value* lanes = lane_ids();
  begin_row_carries();
  begin_lagged_adds();
  CountedLoop loop(b_, block("gang.body"), done, lo, "gang");
  llvm::PHINode* i = loop.counter();
  loop_index_.back() = b_.CreateAdd(splat(i), lanes, "lane_index");
  set_exec(b_.CreateICmpSLT(lanes, splat(b_.CreateSub(hi, i))));
  load_gang_blocks(i);
  stmt(k_.body);
  Value* next = b_.CreateAdd(i, b_.getInt64(gang_));
  no_vectorize(loop.close(next, b_.CreateICmpSLT(next, hi)));
  drop_gang_blocks();
  end_row_carries();
  end_lagged_adds();
}

// A gang loop is already vectorized: LLVM's loop vectorizer need not look at it.
void KernelEmitter::no_vectorize(llvm::Instruction* latch_branch) {
  if (!gang_) return;
  llvm::Metadata* off[] = {llvm::MDString::get(c_, "llvm.loop.vectorize.enable"),
                           llvm::ConstantAsMetadata::get(b_.getFalse())};
  llvm::Metadata* self[] = {nullptr, llvm::MDNode::get(c_, off)};
  llvm::MDNode* loop = llvm::MDNode::getDistinct(c_, self);
  loop->replaceOperandWith(0, loop);
  latch_branch->setMetadata(llvm::LLVMContext::MD_loop, loop);
}

// for (i = start; i < end; ++i) body
void KernelEmitter::emit_1d() {
  BasicBlock* run = block("par");
  BasicBlock* exit = block("exit");
  b_.CreateCondBr(b_.CreateICmpSLT(start_, end_), run, exit);
  b_.SetInsertPoint(run);
  loop_index_ = {nullptr};
  emit_row(start_, end_);
  b_.CreateBr(exit);
  b_.SetInsertPoint(exit);
  b_.CreateRetVoid();
}

// Row-major N-D: `start` is decomposed into indices once; each row of the innermost
// dimension then runs as a counted loop of min(extent - index, end - flat) iterations.
void KernelEmitter::emit_nd() {
  const std::size_t n = k_.dims.size();
  TACK_CHECK(n >= 2 && n <= 4);
  llvm::Type* i64 = b_.getInt64Ty();
  std::vector<Value*> ext(n);
  for (std::size_t d = 0; d < n; ++d) {
    begin_statement({&k_.dims[d]});
    ext[d] = converted(k_.dims[d], DType::I64);
  }
  // Nothing to do for an empty chunk or an empty dimension (which also keeps the divisions below safe).
  Value* run = b_.CreateICmpSLT(start_, end_);
  for (Value* e : ext) run = b_.CreateAnd(run, b_.CreateICmpSGT(e, b_.getInt64(0)));
  std::vector<llvm::AllocaInst*> idx_slot(n);
  llvm::AllocaInst* flat_slot;
  {
    BasicBlock& entry = fn_->getEntryBlock();
    llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
    for (std::size_t d = 0; d < n; ++d) idx_slot[d] = eb.CreateAlloca(i64, nullptr, "idx" + std::to_string(d));
    flat_slot = eb.CreateAlloca(i64, nullptr, "flat");
  }
  BasicBlock* setup = block("par.setup");
  BasicBlock* row = block("par.row");
  BasicBlock* row_end = block("par.row_end");
  BasicBlock* carry = block("par.carry");
  BasicBlock* exit = block("exit");
  b_.CreateCondBr(run, setup, exit);

  // start = ((i0 * e1 + i1) * e2 + i2) ...: n - 1 divisions, once per chunk.
  b_.SetInsertPoint(setup);
  Value* rem = start_;
  for (std::size_t d = n; d-- > 1;) {
    b_.CreateStore(b_.CreateSRem(rem, ext[d]), idx_slot[d]);
    rem = b_.CreateSDiv(rem, ext[d]);
  }
  b_.CreateStore(rem, idx_slot[0]);
  b_.CreateStore(start_, flat_slot);
  b_.CreateBr(row);

  // One row of the innermost dimension: [j0, j0 + len).
  b_.SetInsertPoint(row);
  std::vector<Value*> outer(n);
  for (std::size_t d = 0; d < n; ++d) outer[d] = b_.CreateLoad(i64, idx_slot[d], "i" + std::to_string(d));
  Value* flat = b_.CreateLoad(i64, flat_slot, "f");
  Value* j0 = outer[n - 1];
  Value* len = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateSub(ext[n - 1], j0), b_.CreateSub(end_, flat));
  Value* j_end = b_.CreateNSWAdd(j0, len);
  loop_index_ = outer;
  emit_row(j0, j_end);
  b_.CreateBr(row_end);

  b_.SetInsertPoint(row_end);
  Value* flat_next = b_.CreateNSWAdd(flat, len);
  b_.CreateStore(flat_next, flat_slot);
  b_.CreateCondBr(b_.CreateICmpSLT(flat_next, end_), carry, exit);

  // The row ran to its end (flat < end): the next row starts at index 0, one further along the outer dims.
  b_.SetInsertPoint(carry);
  b_.CreateStore(b_.getInt64(0), idx_slot[n - 1]);
  Value* inc = b_.getInt64(1);
  for (std::size_t d = n - 1; d-- > 0;) {
    Value* v = b_.CreateAdd(outer[d], inc);
    if (d == 0) {
      b_.CreateStore(v, idx_slot[0]);
    } else {
      Value* wrap = b_.CreateICmpEQ(v, ext[d]);
      b_.CreateStore(b_.CreateSelect(wrap, b_.getInt64(0), v), idx_slot[d]);
      inc = b_.CreateZExt(wrap, i64);
    }
  }
  b_.CreateBr(row);

  b_.SetInsertPoint(exit);
  b_.CreateRetVoid();
}

}  // namespace tack::codegen::detail
