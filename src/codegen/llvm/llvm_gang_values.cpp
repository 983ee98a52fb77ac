// The CPU code generator's SIMD path, its values: a gang of work-items runs
// together, one per vector lane. Uniform values (lane_uniformity.hpp) stay
// scalars and are splat where they meet varying ones; the execution mask says
// which lanes run the statement being emitted.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "ir/check.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>

#include <vector>

namespace tack::codegen::detail {

using llvm::Value;

llvm::Type* KernelEmitter::vec(llvm::Type* scalar) const {
  TACK_CHECK(gang_ > 0);
  return llvm::FixedVectorType::get(scalar, gang_);
}

Value* KernelEmitter::splat(Value* v) { return is_vec(v) ? v : b_.CreateVectorSplat(gang_, v); }

bool KernelEmitter::is_vec(const Value* v) { return v->getType()->isVectorTy(); }

bool KernelEmitter::holds_vec(const llvm::AllocaInst* slot) { return slot->getAllocatedType()->isVectorTy(); }

Value* KernelEmitter::lane_ids() {
  std::vector<std::uint64_t> iota(gang_);
  for (unsigned l = 0; l < gang_; ++l) iota[l] = l;
  return llvm::ConstantDataVector::get(c_, iota);
}

Value* KernelEmitter::exec() { return b_.CreateLoad(exec_->getAllocatedType(), exec_, "exec"); }

void KernelEmitter::set_exec(Value* mask) { b_.CreateStore(mask, exec_); }

Value* KernelEmitter::any(Value* mask) { return b_.CreateOrReduce(mask); }

llvm::AllocaInst* KernelEmitter::mask_slot() { return entry_alloca(vec(b_.getInt1Ty()), "lanes"); }

Value* KernelEmitter::no_lanes() { return llvm::Constant::getNullValue(exec_->getAllocatedType()); }

}  // namespace tack::codegen::detail
