// The CPU code generator's SIMD path, its values: a gang of work-items runs
// together, one per vector lane. Uniform values (lane_uniformity.hpp) stay
// scalars and are splat where they meet varying ones; the execution mask says
// which lanes run the statement being emitted; lane_stride finds the indices
// that step by one element from lane to lane, which load and store whole
// vectors instead of gathering.
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

llvm::AllocaInst* KernelEmitter::mask_slot() {
  llvm::BasicBlock& entry = fn_->getEntryBlock();
  llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  return eb.CreateAlloca(vec(eb.getInt1Ty()), nullptr, "lanes");
}

Value* KernelEmitter::no_lanes() { return llvm::Constant::getNullValue(exec_->getAllocatedType()); }

// How the I64 `index` changes from one lane to the next: 0 for a uniform index,
// 1 for the innermost parallel index plus a uniform offset (a[i], a(i, j + 1),
// Lets bound to those), none when unknown. Integer wrap-around cannot break a
// stride of one: the scalar path computes the same wrapped addresses.
std::optional<std::int64_t> KernelEmitter::lane_stride(const ir::Expr& index) {
  auto it = strides_.find(index.get());
  if (it != strides_.end()) return it->second;
  std::optional<std::int64_t> s;
  auto both = [&](const ir::Expr& a, const ir::Expr& b, auto combine) {
    std::optional<std::int64_t> x = lane_stride(a), y = lane_stride(b);
    if (x && y) s = combine(*x, *y);
  };
  if (!lanes_->varying(index)) {
    s = 0;
  } else {
    switch (index->kind) {
      case ir::ExprKind::LoopIndex:
        if (index.as<ir::LoopIndex>()->dim == static_cast<int>(k_.dims.size()) - 1) s = 1;
        break;
      case ir::ExprKind::LetRef: {
        if (lanes_->work_item_index(index.as<ir::LetRef>()->id)) {
          s = 1;
          break;
        }
        auto v = let_values_.find(index.as<ir::LetRef>()->id);
        if (v != let_values_.end()) s = lane_stride(v->second);
        break;
      }
      case ir::ExprKind::Cast: {
        const ir::Expr& from = index.as<ir::Cast>()->value;
        DType f = from->type.dtype, t = index->type.dtype;
        if ((f == DType::I64 || f == DType::U64) && (t == DType::I64 || t == DType::U64)) s = lane_stride(from);
        break;
      }
      case ir::ExprKind::Op: {
        const auto* n = index.as<ir::Op>();
        DType t = index->type.dtype;
        if (t != DType::I64 && t != DType::U64) break;
        if (lanes_->gang_offset(index)) {
          s = 1;
          break;
        }
        if (n->op == ir::OpCode::Add) both(n->args[0], n->args[1], [](auto x, auto y) { return x + y; });
        if (n->op == ir::OpCode::Sub) both(n->args[0], n->args[1], [](auto x, auto y) { return x - y; });
        if (n->op == ir::OpCode::Mul) {
          for (int k = 0; k < 2; ++k) {
            const auto* c = n->args[static_cast<std::size_t>(k)].as<ir::Const>();
            std::optional<std::int64_t> other = lane_stride(n->args[static_cast<std::size_t>(1 - k)]);
            if (c && other && c->i >= -1024 && c->i <= 1024) s = c->i * *other;
          }
        }
        break;
      }
      default: break;
    }
  }
  strides_.emplace(index.get(), s);
  return s;
}

}  // namespace tack::codegen::detail
