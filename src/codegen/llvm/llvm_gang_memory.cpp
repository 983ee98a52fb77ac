// The CPU code generator's SIMD path, its memory accesses: an index that steps
// by one element from lane to lane is one vector load or store, any other
// varying index a gather or scatter, a uniform one a scalar access; all of them
// under the execution mask, so a lane that is not running never touches
// memory (its index may be out of range). Atomics run lane by lane in lane
// order, each as the scalar path does it, except a plain add (row_scatter.hpp)
// on consecutive elements: one vector read, add and write.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "analysis/record_adds.hpp"
#include "analysis/record_index.hpp"
#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "ir/walk.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

namespace tack::codegen::detail {

using llvm::Value;

// A local array's row of element `index` (uniform): the gang's lanes side by side.
Value* KernelEmitter::local_row(const ir::ArrayRef& a, Value* index) {
  return element_ptr(a, b_.CreateMul(index, b_.getInt64(gang_)));
}

// Each lane's own element at a varying `index`: a vector of addresses.
Value* KernelEmitter::local_lanes(const ir::ArrayRef& a, Value* index) {
  return element_ptr(a, b_.CreateAdd(b_.CreateMul(index, splat(b_.getInt64(gang_))), lane_ids()));
}

Value* KernelEmitter::gang_load(const ir::Load* n, DType to) {
  DType t = array_dtype(n->array);
  llvm::Type* mt = memory_type(c_, t);
  Value* index = converted(n->index, DType::I64);
  Value* v;
  if (n->array.space == ir::ArrayRef::Space::Local) {
    // Every lane reads its own element; lanes that do not run hold zero, as below.
    llvm::Type* vt = vec(mt);
    if (!is_vec(index))
      v = load_lanes(vt, local_row(n->array, index), element_align(t));
    else
      v = gather(vt, local_lanes(n->array, index), element_align(t));
  } else if (!is_vec(index)) {
    v = b_.CreateAlignedLoad(mt, element_ptr(n->array, index), element_align(t));
  } else {
    // Lanes that do not run read nothing and hold zero (never poison, which a mask built from them would spread).
    llvm::Type* vt = vec(mt);
    if (lanes_->lane_stride(n->index) == 1) {
      Value* first = element_ptr(n->array, b_.CreateExtractElement(index, uint64_t{0}));
      v = load_lanes(vt, first, element_align(t));
    } else if (std::optional<RecordField> field = record_field(n->index)) {
      v = record_field_load(n->array, *field, index);
    } else {
      v = gather(vt, element_ptr(n->array, index), element_align(t));
    }
  }
  return emit_cast(b_, t, to, from_memory(b_, t, v));
}

void KernelEmitter::gang_store(const ir::Store* n) {
  begin_statement({&n->index, &n->value});
  DType t = array_dtype(n->array);
  Value* index = converted(n->index, DType::I64);
  Value* v = to_memory(b_, t, converted(n->value, t));
  if (n->array.space == ir::ArrayRef::Space::Local) {
    // Every running lane writes its own element; the others keep theirs.
    if (!is_vec(index))
      store_lanes(splat(v), local_row(n->array, index), element_align(t));
    else
      scatter(splat(v), local_lanes(n->array, index), element_align(t));
    return;
  }
  if (!is_vec(index) && !is_vec(v)) {
    // Some lane runs here (emit_block's rule), and every running lane stores the same value.
    b_.CreateAlignedStore(v, element_ptr(n->array, index), element_align(t));
    return;
  }
  v = splat(v);
  if (is_vec(index) && lanes_->lane_stride(n->index) == 1) {
    Value* first = element_ptr(n->array, b_.CreateExtractElement(index, uint64_t{0}));
    store_lanes(v, first, element_align(t));
    return;
  }
  // Where lanes share an element the last running lane's value stays, as when the scalar path runs the
  // work-items in order.
  scatter(v, element_ptr(n->array, splat(index)), element_align(t));
}

// Whether a varying index reads field k of records of `size` elements, one record per lane (`size * u + k`, u
// stepping by one from lane to lane, k a constant): k-means' points of 8 features, an array of vec3s.
std::optional<KernelEmitter::RecordField> KernelEmitter::record_field(const ir::Expr& index) const {
  const std::optional<analysis::RecordIndex> at =
      analysis::record_index(index, [](const ir::Expr& e) -> const ir::Expr& { return e; });
  if (!at || lanes_->lane_stride(index) != at->size) return std::nullopt;
  const std::int64_t field = ((at->offset % at->size) + at->size) % at->size;
  return RecordField{at->size, field, at->record, at->offset - field};
}

// Field `f.field` of each lane's record: the gang's records are one block of consecutive elements, from the first
// lane's record start. The running lanes' records (those inside the array, so a lane's index past its end reads
// nothing, as a gather would) come in one masked load, and the field out of it by a shuffle; every field read of
// the same records loads the same block under the same mask, which LLVM loads once: a gang of k-means points
// takes its 8 features from 8 vector loads and shuffles instead of 8 gathers (16 lanes' worth each), which AMD
// hosts run at a fraction of a load's speed. The gang's own records of an array the kernel never writes come from
// the block loaded at the top of the gang (llvm_gang_record_blocks.cpp).
Value* KernelEmitter::record_field_load(const ir::ArrayRef& a, const RecordField& f, Value* index) {
  Value* records = gang_block(a, f);
  if (!records) {
    Value* start = b_.CreateSub(b_.CreateExtractElement(index, uint64_t{0}), b_.getInt64(f.field));
    records = record_block(a, f.size, start, false);
  }
  std::vector<int> field(gang_);
  for (unsigned l = 0; l < gang_; ++l) field[l] = static_cast<int>(l * static_cast<unsigned>(f.size) + f.field);
  // A lane whose element lies outside the array, or that does not run, holds zero, as a gather leaves it.
  return b_.CreateShuffleVector(records, field);
}

// The gang's records of `size` elements from element `start` of a, those of the running lanes inside the array
// (elsewhere zero). `whole_first`: a gang whose lanes all run and whose block lies inside the array takes a plain
// load and computes no mask (the mask, a compare per 16 elements and the lanes' bits spread over the block, is
// about 75 instructions for k-means' 128 elements, on the way to the gang's first use of a field).
Value* KernelEmitter::record_block(const ir::ArrayRef& a, std::int64_t size, Value* start, bool whole_first) {
  const DType t = array_dtype(a);
  const auto block = static_cast<unsigned>(size) * gang_;
  llvm::Type* block_type = llvm::FixedVectorType::get(memory_type(c_, t), block);
  auto masked = [&]() -> Value* {
    // Elements [lo, hi) of the block lie inside the array; lane l's record is elements [size*l, size*(l+1)).
    auto clamped = [&](Value* x) {
      Value* low = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, b_.getInt64(0));
      return b_.CreateTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, low, b_.getInt64(block)), b_.getInt32Ty());
    };
    Value* lo = clamped(b_.CreateNeg(start));
    Value* hi = clamped(b_.CreateSub(array_param(a).size, start));
    std::vector<std::uint32_t> positions(block);
    std::vector<int> owner(block);
    for (unsigned p = 0; p < block; ++p) {
      positions[p] = p;
      owner[p] = static_cast<int>(p / static_cast<unsigned>(size));
    }
    Value* iota = llvm::ConstantDataVector::get(c_, positions);
    Value* inside = b_.CreateAnd(b_.CreateICmpUGE(iota, b_.CreateVectorSplat(block, lo)),
                                 b_.CreateICmpULT(iota, b_.CreateVectorSplat(block, hi)));
    Value* mask = b_.CreateAnd(inside, b_.CreateShuffleVector(exec(), owner));
    return b_.CreateMaskedLoad(block_type, element_ptr(a, start), element_align(t), mask,
                               llvm::Constant::getNullValue(block_type));
  };
  if (!whole_first) return masked();
  // The running lanes, where the block lies inside the array: every lane of the gang, or the masked load.
  Value* inside = b_.CreateAnd(b_.CreateICmpSGE(start, b_.getInt64(0)),
                               b_.CreateICmpSLE(b_.CreateAdd(start, b_.getInt64(block)), array_param(a).size));
  return by_lanes_running(b_.CreateAnd(exec(), splat(inside)), [&](bool every) -> Value* {
    if (every) return b_.CreateAlignedLoad(block_type, element_ptr(a, start), element_align(t));
    return masked();
  });
}

// A gather or scatter reaches memory with every lane: the lanes that do not run at a scratch element of the
// stack. Where the host has no fast gathers (AVX2 on AMD) or no scatters at all (AVX2), LLVM expands a masked
// one into a branch and a block per lane, an unmasked one into straight-line loads or stores: the LBM
// adjoint's 12 gathers and 6 scatters made it three times as many blocks as its forward kernel, and code
// generation a third slower (bench/RESULTS.md, "Differentiation, third measurement"). Where the host has
// them, the unmasked instruction costs what the masked one does.
Value* KernelEmitter::running_or_scratch(Value* addresses) {
  if (!scratch_) {
    scratch_ = entry_alloca(b_.getInt64Ty(), "scratch");
    // What a lane that does not run reads is never undefined.
    llvm::IRBuilder<>(scratch_->getNextNode()).CreateStore(b_.getInt64(0), scratch_);
  }
  return b_.CreateSelect(exec(), addresses, b_.CreateVectorSplat(gang_, scratch_));
}

// What each running lane reads at its address; zero in the others.
Value* KernelEmitter::gather(llvm::Type* vt, Value* addresses, llvm::Align align) {
  Value* none = llvm::Constant::getNullValue(vt);
  Value* v = b_.CreateMaskedGather(vt, running_or_scratch(addresses), align, every_lane(), none);
  return b_.CreateSelect(exec(), v, none);
}

// v's lanes to their addresses, those of the running lanes; lane after lane, so where lanes share an element
// the last one's value stays.
void KernelEmitter::scatter(Value* v, Value* addresses, llvm::Align align) {
  b_.CreateMaskedScatter(v, running_or_scratch(addresses), align, every_lane());
}

Value* KernelEmitter::every_lane() { return llvm::Constant::getAllOnesValue(exec_->getAllocatedType()); }

// `let x = a[idx]` followed by `a[idx] = v` (the same index; v may read x but no array), both on consecutive
// elements: one test of whether every lane runs for the two. An adjoint reads and clears each output gradient
// this way, and a read-modify-write of a gradient is this; one test each doubled the blocks LLVM compiles for them.
bool KernelEmitter::read_then_write(const ir::Stmt& read, const ir::Stmt& write) {
  const auto* let = read.as<ir::Let>();
  const auto* load = let ? let->value.as<ir::Load>() : nullptr;
  const auto* store = write.as<ir::Store>();
  if (!load || !store || load->array.space != ir::ArrayRef::Space::Param || !(store->array == load->array) ||
      !lanes_->let_varying(let->id) || lanes_->lane_stride(load->index) != 1)
    return false;
  auto reads_memory = [](const ir::Expr& root) {
    bool loads = false;
    std::unordered_set<const ir::ExprNode*> seen;
    ir::walk(root, seen, [&](const ir::Expr& e) { loads |= e->kind == ir::ExprKind::Load; });
    return loads;
  };
  // The value is computed in both branches: its own loads would be tested twice.
  if (reads_memory(store->value)) return false;
  if (store->index.same_as(load->index)) return true;
  // The same text is the same element when the index reads no memory (nothing runs between the two).
  return !reads_memory(load->index) && ir::to_string(store->index) == ir::to_string(load->index);
}

void KernelEmitter::gang_read_then_write(const ir::Let* let, const ir::Store* store) {
  const auto* load = let->value.as<ir::Load>();
  begin_statement({&let->value});
  const DType t = array_dtype(load->array);
  llvm::Type* vt = vec(memory_type(c_, t));
  const llvm::Align align = element_align(t);
  Value* first = element_ptr(load->array, b_.CreateExtractElement(converted(load->index, DType::I64), uint64_t{0}));
  Value* mask = exec();
  const auto id = static_cast<std::size_t>(let->id);
  Value* x = by_lanes_running(mask, [&](bool every) -> Value* {
    Value* v = every ? static_cast<Value*>(b_.CreateAlignedLoad(vt, first, align))
                     : b_.CreateMaskedLoad(vt, first, align, mask, llvm::Constant::getNullValue(vt));
    Value* read = emit_cast(b_, load->type.dtype, let_dtype(let->id),
                            emit_cast(b_, t, load->type.dtype, from_memory(b_, t, v)));
    let_values_ssa_[id] = read;  // for the store's value, in this branch
    begin_statement({&store->value});
    Value* w = splat(to_memory(b_, t, converted(store->value, t)));
    if (every)
      b_.CreateAlignedStore(w, first, align);
    else
      b_.CreateMaskedStore(w, first, align, mask);
    return read;
  });
  let_values_ssa_[id] = x;
}

// Consecutive elements from `first` into the running lanes (zero in the others).
Value* KernelEmitter::load_lanes(llvm::Type* vt, Value* first, llvm::Align align) {
  Value* mask = exec();
  return by_lanes_running(mask, [&](bool every) -> Value* {
    if (every) return b_.CreateAlignedLoad(vt, first, align);
    return b_.CreateMaskedLoad(vt, first, align, mask, llvm::Constant::getNullValue(vt));
  });
}

// v's lanes to consecutive elements from `first`, those of the running lanes.
void KernelEmitter::store_lanes(Value* v, Value* first, llvm::Align align) {
  Value* mask = exec();
  by_lanes_running(mask, [&](bool every) -> Value* {
    if (every)
      b_.CreateAlignedStore(v, first, align);
    else
      b_.CreateMaskedStore(v, first, align, mask);
    return nullptr;
  });
}

// The running lanes as the bits of one integer (lane l at bit l), for a lane loop to test with a shift: a mask
// element read at a lane the code computes would write the whole mask to the stack at every lane.
Value* KernelEmitter::running_bits() {
  return b_.CreateZExt(b_.CreateBitCast(exec(), b_.getIntNTy(static_cast<unsigned>(gang_))), b_.getInt64Ty());
}

Value* KernelEmitter::lane_runs(Value* bits, Value* lane) {
  return b_.CreateTrunc(b_.CreateLShr(bits, b_.CreateZExt(lane, b_.getInt64Ty())), b_.getInt1Ty());
}

// v's lanes, for a loop over the lanes to read one at a time (Lanes::at): in a stack slot written once before the
// loop where v is a vector. Where LLVM unrolls the loop whole, the lanes are constants and the slot goes away;
// where it does not (k-means' run of adds), an extractelement at a lane the code computes would write the whole
// vector to the stack again at every lane.
KernelEmitter::Lanes KernelEmitter::lanes_of(Value* v) {
  if (!v || !is_vec(v)) return {v, nullptr};
  llvm::AllocaInst* slot = entry_alloca(v->getType(), "lanes");
  b_.CreateStore(v, slot);
  return {v, slot};
}

Value* KernelEmitter::Lanes::at(llvm::IRBuilderBase& b, Value* lane) const {
  if (!slot) return value;
  llvm::Type* element = llvm::cast<llvm::VectorType>(value->getType())->getElementType();
  // At a constant lane the load is volatile: SROA would otherwise turn the slot back into the vector and each
  // read into an extract (two shuffles a lane on AVX-512, k-means' adds 8.2 ms where a load at a fixed offset
  // gives 7.x).
  return b.CreateLoad(element, b.CreateGEP(element, slot, lane), llvm::isa<llvm::Constant>(lane));
}

void KernelEmitter::gang_atomic(const ir::Atomic* n) {
  begin_statement({&n->index, &n->value, &n->compare});
  DType t = array_dtype(n->array);
  TACK_CHECK(t != DType::Bool);
  Value* index = converted(n->index, DType::I64);
  Value* v = converted(n->value, t);
  Value* compare = n->op == ir::AtomicOp::Cas ? converted(n->compare, t) : nullptr;
  llvm::AllocaInst* result = let_slot(n->result);
  TACK_CHECK(holds_vec(result));
  if (plain_atomic(n) && is_vec(index) && lanes_->lane_stride(n->index) == 1) {
    // Lanes on consecutive elements: one masked read, add and write for the gang.
    llvm::Type* vt = vec(memory_type(c_, t));
    Value* first = element_ptr(n->array, b_.CreateExtractElement(index, uint64_t{0}));
    Value* old = from_memory(b_, t, load_lanes(vt, first, element_align(t)));
    Value* args[2] = {old, splat(v)};
    Value* sum = emit_op(b_, n->op == ir::AtomicOp::Add ? ir::OpCode::Add : ir::OpCode::Sub, t, args, false);
    store_lanes(to_memory(b_, t, sum), first, element_align(t));
    b_.CreateStore(emit_cast(b_, t, let_dtype(n->result), old), result);
    return;
  }
  const Lanes indices = lanes_of(index), values = lanes_of(v), compares = lanes_of(compare);
  for_each_active_lane([&](Value* lane) {
    Value* ptr = element_ptr(n->array, indices.at(b_, lane));
    Value* old = atomic_at(n, ptr, values.at(b_, lane), compare ? compares.at(b_, lane) : nullptr);
    Value* all = b_.CreateLoad(result->getAllocatedType(), result);
    b_.CreateStore(b_.CreateInsertElement(all, emit_cast(b_, t, let_dtype(n->result), old), lane), result);
  });
}

}  // namespace tack::codegen::detail
