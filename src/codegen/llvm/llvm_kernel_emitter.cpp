// The kernel function's frame: its parameters bound to named LLVM arguments,
// shared arrays as 64-byte aligned allocas, and one entry-block alloca per Let
// and Var, made at first use (the pipeline's SROA/mem2reg turns them into SSA values).
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "analysis/narrow_vars.hpp"

#include "abi/group_size.hpp"
#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"
#include "ir/visitor.hpp"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <string>

namespace tack::codegen::detail {

using llvm::BasicBlock;
using llvm::Value;

KernelEmitter::KernelEmitter(const ir::Kernel& k, llvm::Module& m, llvm::Function* fn, unsigned gang,
                             const codegen::VectorMath& math)
    : k_(k), c_(m.getContext()), fn_(fn), b_(m.getContext()), gang_(gang), math_(math), places_(k) {
  if (!gang_) return;
  // Workgroup kernels: each loop over a group's work-items is whole gangs.
  TACK_CHECK(k.launch == ir::LaunchKind::Parallel || abi::kGroupSize % gang_ == 0);
  TACK_CHECK(gang_ <= analysis::LaneUniformity::kMaxGang);
  lanes_ = std::make_unique<analysis::LaneUniformity>(k);
}

void KernelEmitter::emit() {
  BasicBlock* entry = BasicBlock::Create(c_, "entry", fn_);
  b_.SetInsertPoint(entry);
  bind_params();
  let_slots_.assign(k_.lets.size(), nullptr);
  let_values_ssa_.assign(k_.lets.size(), nullptr);
  var_slots_.assign(k_.vars.size(), nullptr);
  if (gang_) narrow_vars_ = analysis::i32_ranged_vars(k_);
  alloc_shared();
  alloc_locals();
  if (gang_) exec_ = b_.CreateAlloca(vec(b_.getInt1Ty()), nullptr, "exec");
  plan_row_carries();
  plan_lagged_adds();
  plan_gang_blocks();
  if (k_.dims.size() <= 1) {
    emit_1d();
  } else {
    emit_nd();
  }
}

void KernelEmitter::bind_params() {
  auto arg = fn_->arg_begin();
  auto next = [&](const std::string& name) {
    Value* v = &*arg++;
    v->setName(name);
    return v;
  };
  params_.resize(k_.params.size());
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const ir::Param& p = k_.params[i];
    ParamValues& pv = params_[i];
    std::string n = std::to_string(i);
    switch (p.kind) {
      case ir::ParamKind::Array:
        pv.data = next("a" + n);
        pv.size = next("a" + n + ".size");
        for (int d = 0; d < p.rank; ++d)
          pv.extent[static_cast<std::size_t>(d)] = next("a" + n + ".dim" + std::to_string(d));
        break;
      case ir::ParamKind::Scalar: pv.scalar = from_memory(b_, p.dtype, next("s" + n)); break;
      case ir::ParamKind::Texture:
        pv.data = next("t" + n);
        pv.extent[0] = next("t" + n + ".width");
        pv.extent[1] = next("t" + n + ".height");
        pv.extent[2] = next("t" + n + ".depth");
        break;
    }
  }
  start_ = next("start");
  end_ = next("end");
}

const ParamValues& KernelEmitter::array_param(const ir::ArrayRef& a) const {
  TACK_CHECK(a.space == ir::ArrayRef::Space::Param);
  TACK_CHECK(a.index >= 0 && static_cast<std::size_t>(a.index) < k_.params.size());
  TACK_CHECK(k_.params[static_cast<std::size_t>(a.index)].kind == ir::ParamKind::Array);
  return params_[static_cast<std::size_t>(a.index)];
}

DType KernelEmitter::array_dtype(const ir::ArrayRef& a) const {
  if (a.space == ir::ArrayRef::Space::Local) {
    TACK_CHECK(a.index >= 0 && static_cast<std::size_t>(a.index) < k_.locals.size());
    return k_.locals[static_cast<std::size_t>(a.index)].dtype;
  }
  if (a.space == ir::ArrayRef::Space::Shared) {
    TACK_CHECK(a.index >= 0 && static_cast<std::size_t>(a.index) < k_.shared.size());
    return k_.shared[static_cast<std::size_t>(a.index)].dtype;
  }
  return k_.params[static_cast<std::size_t>(a.index)].dtype;
}

// The first element of a parameter array or of a shared array's alloca.
Value* KernelEmitter::array_base(const ir::ArrayRef& a) const {
  if (a.space == ir::ArrayRef::Space::Shared) return shared_[static_cast<std::size_t>(a.index)];
  if (a.space == ir::ArrayRef::Space::Local) return locals_[static_cast<std::size_t>(a.index)];
  return array_param(a).data;
}

// Shared arrays: one alloca each in the entry block, 64-byte aligned so the
// work-item loops over them vectorize cleanly.
void KernelEmitter::alloc_shared() {
  for (std::size_t i = 0; i < k_.shared.size(); ++i) {
    const ir::SharedArray& s = k_.shared[i];
    TACK_CHECK(s.count >= 0);
    llvm::Type* arr = llvm::ArrayType::get(memory_type(c_, s.dtype), static_cast<std::uint64_t>(s.count));
    llvm::AllocaInst* a = b_.CreateAlloca(arr, nullptr, "shared" + std::to_string(i));
    a->setAlignment(llvm::Align(64));
    shared_.push_back(a);
  }
}

// Local arrays: one entry-block alloca each, reused by every work-item (or gang) the
// function runs; the IR zeroes it where the program declares it.
void KernelEmitter::alloc_locals() {
  for (std::size_t i = 0; i < k_.locals.size(); ++i) {
    const ir::LocalArray& l = k_.locals[i];
    TACK_CHECK(l.count > 0);
    const std::uint64_t n = static_cast<std::uint64_t>(l.count) * (gang_ ? gang_ : 1);
    llvm::AllocaInst* a =
        b_.CreateAlloca(llvm::ArrayType::get(memory_type(c_, l.dtype), n), nullptr, "local" + std::to_string(i));
    a->setAlignment(llvm::Align(64));
    locals_.push_back(a);
  }
}

// Let and Var storage: an alloca at the top of the entry block, made at first use.
llvm::AllocaInst* KernelEmitter::slot(std::vector<llvm::AllocaInst*>& slots, const std::vector<ir::Type>& types, int id,
                                      const char* prefix, bool varying, bool narrow) {
  TACK_CHECK(id >= 0 && static_cast<std::size_t>(id) < slots.size());
  llvm::AllocaInst*& s = slots[static_cast<std::size_t>(id)];
  if (!s) {
    llvm::Type* t = narrow ? b_.getInt32Ty() : value_type(c_, types[static_cast<std::size_t>(id)].dtype);
    s = entry_alloca(varying ? vec(t) : t, prefix + std::to_string(id));
  }
  return s;
}

llvm::AllocaInst* KernelEmitter::entry_alloca(llvm::Type* t, const llvm::Twine& name) {
  BasicBlock& entry = fn_->getEntryBlock();
  llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  return eb.CreateAlloca(t, nullptr, name);
}

// v, of the Var's dtype, as its slot holds it.
llvm::Value* KernelEmitter::to_var(int id, llvm::Value* v) {
  return narrow_var(id) ? b_.CreateTrunc(v, shaped_like(b_.getInt32Ty(), v)) : v;
}

}  // namespace tack::codegen::detail
