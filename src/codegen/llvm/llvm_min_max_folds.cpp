// A loop that only folds a float Var with min or max (analysis/min_max_folds.hpp) on the scalar path. Folded as
// written, each step is a compare on NaN, a compare and a select, one after another: LLVM cannot vectorize it,
// since which of +0 and -0 (and which NaN) comes out depends on the order. So the loop runs first over integer
// keys that order every float (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN): a max or min of integers,
// which LLVM vectorizes. Where the key's float is a number other than a zero (and not the infinity a fold starts
// from), it is the fold's answer in any order: NaNs are skipped by min and max (the negative ones sort below
// every number, and a positive one would have won the key's max), and equal nonzero numbers have equal bits. The
// Var then takes it as the written fold would have, `v = max(v, w)`. Otherwise (a zero, no number at all, a NaN
// of the wrong sign) the loop runs again as written, which the rows of real data rarely need.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "codegen/llvm/llvm_ops.hpp"

#include <llvm/ADT/APInt.h>
#include <llvm/IR/Constants.h>

namespace tack::codegen::detail {

using llvm::Value;

namespace {

constexpr CountedLoop::Names kFoldNames{"fold.head", "fold.body", "fold.next", "fold.end"};

// The order-preserving key of a float's bits x (flip the magnitude of the negative ones), and back: the same map.
Value* float_key(llvm::IRBuilderBase& b, Value* x) {
  const unsigned bits = x->getType()->getIntegerBitWidth();
  Value* sign = b.CreateAShr(x, bits - 1);
  return b.CreateXor(x, b.CreateAnd(sign, b.getInt(llvm::APInt::getSignedMaxValue(bits))));
}

}  // namespace

void KernelEmitter::emit_min_max_fold(const ir::For* n, const analysis::MinMaxFold& fold, Value* lo, Value* hi) {
  const DType t = var_dtype(fold.var);
  llvm::Type* ft = value_type(c_, t);
  const unsigned bits = ft->getPrimitiveSizeInBits().getFixedValue();
  llvm::IntegerType* it = b_.getIntNTy(bits);
  llvm::AllocaInst* acc = entry_alloca(it, "fold" + std::to_string(n->index));
  // A max starts from the least key (a negative NaN's), a min from the greatest: neither is a number.
  b_.CreateStore(b_.getInt(fold.is_max ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getSignedMaxValue(bits)),
                 acc);
  CountedLoop probe(b_, kFoldNames, lo, "k" + std::to_string(n->index));
  llvm::PHINode* i = probe.counter();
  b_.CreateCondBr(b_.CreateICmpSLT(i, hi), probe.body(), probe.exit());
  b_.SetInsertPoint(probe.body());
  b_.CreateStore(i, let_slot(n->index));
  for (const ir::Stmt& let : fold.lets) stmt(let);
  begin_statement({&fold.operand});
  Value* key = float_key(b_, b_.CreateBitCast(converted(fold.operand, t), it));
  Value* folded = b_.CreateBinaryIntrinsic(fold.is_max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin,
                                           b_.CreateLoad(it, acc), key);
  b_.CreateStore(folded, acc);
  b_.CreateBr(probe.latch());
  b_.SetInsertPoint(probe.latch());
  probe.close(b_.CreateNSWAdd(i, b_.getInt64(1)));

  Value* w = b_.CreateBitCast(float_key(b_, b_.CreateLoad(it, acc)), ft);
  const llvm::APFloat inf = llvm::APFloat::getInf(ft->getFltSemantics(), /*Negative=*/fold.is_max);
  Value* beyond_start = fold.is_max ? b_.CreateFCmpOGT(w, llvm::ConstantFP::get(ft, inf))
                                    : b_.CreateFCmpOLT(w, llvm::ConstantFP::get(ft, inf));
  Value* answered = b_.CreateAnd(beyond_start, b_.CreateFCmpONE(w, llvm::ConstantFP::getZero(ft)));
  llvm::BasicBlock* take = block("fold.take");
  llvm::BasicBlock* again = block("fold.again");
  llvm::BasicBlock* done = block("fold.done");
  b_.CreateCondBr(answered, take, again);

  b_.SetInsertPoint(take);
  llvm::AllocaInst* slot = var_slot(fold.var);
  Value* v = b_.CreateLoad(ft, slot);
  Value* const args[2] = {fold.var_first ? v : w, fold.var_first ? w : v};
  b_.CreateStore(emit_op(b_, fold.is_max ? ir::OpCode::Max : ir::OpCode::Min, t, args, false), slot);
  b_.CreateBr(done);

  b_.SetInsertPoint(again);
  emit_counted_for(n, lo, hi);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

}  // namespace tack::codegen::detail
