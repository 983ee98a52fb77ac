// Typed Tack IR to LLVM IR for the CPU backend: the kernel function with its
// parallel loop over [start, end), and the chunk wrapper that unpacks an
// argument pack. Operators, casts and texture samples are in llvm_ops.cpp.
//
// Shape of the generated code:
// - Every Let and Var is an alloca in the entry block, stored where it is bound
//   and loaded where it is read; O3's SROA/mem2reg turns them into SSA values.
// - Expressions are pure and never branch, so within one statement each node is
//   emitted once (a shared node is one LLVM value) and all of a statement's
//   values dominate its uses.
// - Workgroup kernels arrive lowered by passes::lower_workgroups: one iteration
//   of the 1-D launch loop runs a whole group (LoopIndex 0 is the group id), and
//   shared arrays are allocas of the entry block, private to the thread running
//   the group (the lowered IR zeroes them itself at the start of each group).
// - 1-D launches are one counted loop. N-D launches decompose `start` into
//   indices once (the only divisions), then run the innermost dimension as a
//   clean counted loop over a row, carrying into the outer indices between rows.
// - No fast-math flags, except `contract` on a float product whose only use is
//   a float add or subtract of the same statement, and on that add or subtract
//   (DESIGN §4: `a*b+c` in one expression may fuse, a product with another use
//   may not).
#include "codegen/llvm/llvm_gen.hpp"

#include "codegen/identifiers.hpp"
#include "codegen/llvm/llvm_ops.hpp"
#include "codegen/statement_uses.hpp"
#include "ir/check.hpp"
#include "ir/scalar_ops.hpp"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::codegen {

namespace {

using detail::emit_cast;
using detail::emit_op;
using llvm::BasicBlock;
using llvm::Value;

// The LLVM values of one kernel parameter inside the kernel function.
struct ParamValues {
  Value* data = nullptr;           // arrays and textures
  Value* size = nullptr;           // arrays: element count
  std::array<Value*, 4> extent{};  // arrays: shape; textures: width, height, depth
  Value* scalar = nullptr;         // scalars, in their register type
};

// The kernel function's parameter list (see LlvmModule::kernel_symbol).
std::vector<llvm::Type*> kernel_param_types(const ir::Kernel& k, llvm::LLVMContext& c) {
  std::vector<llvm::Type*> types;
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  for (const ir::Param& p : k.params) {
    switch (p.kind) {
      case ir::ParamKind::Array:
        TACK_CHECK(p.rank >= 1 && p.rank <= 4);
        types.push_back(ptr);
        types.insert(types.end(), 1 + static_cast<std::size_t>(p.rank), i64);
        break;
      case ir::ParamKind::Scalar: types.push_back(detail::memory_type(c, p.dtype)); break;
      case ir::ParamKind::Texture3D:
        types.push_back(ptr);
        types.insert(types.end(), 3, i64);
        break;
    }
  }
  types.push_back(i64);  // start
  types.push_back(i64);  // end
  return types;
}

class KernelEmitter {
 public:
  KernelEmitter(const ir::Kernel& k, llvm::Module& m, llvm::Function* fn)
      : k_(k), c_(m.getContext()), fn_(fn), b_(m.getContext()) {}

  void emit() {
    BasicBlock* entry = BasicBlock::Create(c_, "entry", fn_);
    b_.SetInsertPoint(entry);
    bind_params();
    let_slots_.assign(k_.lets.size(), nullptr);
    var_slots_.assign(k_.vars.size(), nullptr);
    alloc_shared();
    if (k_.dims.size() <= 1) {
      emit_1d();
    } else {
      emit_nd();
    }
  }

 private:
  // ---- parameters ------------------------------------------------------------

  void bind_params() {
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
        case ir::ParamKind::Scalar: pv.scalar = detail::from_memory(b_, p.dtype, next("s" + n)); break;
        case ir::ParamKind::Texture3D:
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

  const ParamValues& array_param(const ir::ArrayRef& a) const {
    TACK_CHECK(a.space == ir::ArrayRef::Space::Param);
    TACK_CHECK(a.index >= 0 && static_cast<std::size_t>(a.index) < k_.params.size());
    TACK_CHECK(k_.params[static_cast<std::size_t>(a.index)].kind == ir::ParamKind::Array);
    return params_[static_cast<std::size_t>(a.index)];
  }
  DType array_dtype(const ir::ArrayRef& a) const {
    if (a.space == ir::ArrayRef::Space::Shared) {
      TACK_CHECK(a.index >= 0 && static_cast<std::size_t>(a.index) < k_.shared.size());
      return k_.shared[static_cast<std::size_t>(a.index)].dtype;
    }
    return k_.params[static_cast<std::size_t>(a.index)].dtype;
  }
  // The first element of a parameter array or of a shared array's alloca.
  Value* array_base(const ir::ArrayRef& a) const {
    if (a.space == ir::ArrayRef::Space::Shared) return shared_[static_cast<std::size_t>(a.index)];
    return array_param(a).data;
  }

  // Shared arrays: one alloca each in the entry block, 64-byte aligned so the
  // work-item loops over them vectorize cleanly.
  void alloc_shared() {
    for (std::size_t i = 0; i < k_.shared.size(); ++i) {
      const ir::SharedArray& s = k_.shared[i];
      TACK_CHECK(s.count >= 0);
      llvm::Type* arr = llvm::ArrayType::get(detail::memory_type(c_, s.dtype), static_cast<std::uint64_t>(s.count));
      llvm::AllocaInst* a = b_.CreateAlloca(arr, nullptr, "shared" + std::to_string(i));
      a->setAlignment(llvm::Align(64));
      shared_.push_back(a);
    }
  }

  // ---- Let and Var storage ---------------------------------------------------

  llvm::AllocaInst* slot(std::vector<llvm::AllocaInst*>& slots, const std::vector<ir::Type>& types, int id,
                         const char* prefix) {
    TACK_CHECK(id >= 0 && static_cast<std::size_t>(id) < slots.size());
    llvm::AllocaInst*& s = slots[static_cast<std::size_t>(id)];
    if (!s) {
      BasicBlock& entry = fn_->getEntryBlock();
      llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
      s = eb.CreateAlloca(detail::value_type(c_, types[static_cast<std::size_t>(id)].dtype), nullptr,
                          prefix + std::to_string(id));
    }
    return s;
  }
  llvm::AllocaInst* let_slot(int id) { return slot(let_slots_, k_.lets, id, "let"); }
  llvm::AllocaInst* var_slot(int id) { return slot(var_slots_, k_.vars, id, "var"); }
  DType let_dtype(int id) const { return k_.lets[static_cast<std::size_t>(id)].dtype; }
  DType var_dtype(int id) const { return k_.vars[static_cast<std::size_t>(id)].dtype; }

  // ---- statements --------------------------------------------------------------

  // Starts a statement whose expression trees are `roots`: a fresh per-statement
  // value cache, and the products that may contract.
  void begin_statement(std::initializer_list<const ir::Expr*> roots) {
    cache_.clear();
    contract_ = statement_uses(roots).fusible;
  }

  void stmt(const ir::Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case ir::StmtKind::Block:
        for (const ir::Stmt& child : s.as<ir::Block>()->stmts) stmt(child);
        return;
      case ir::StmtKind::Let: {
        const auto* n = s.as<ir::Let>();
        begin_statement({&n->value});
        b_.CreateStore(converted(n->value, let_dtype(n->id)), let_slot(n->id));
        return;
      }
      case ir::StmtKind::DeclareVar: {
        const auto* n = s.as<ir::DeclareVar>();
        begin_statement({&n->init});
        b_.CreateStore(converted(n->init, var_dtype(n->id)), var_slot(n->id));
        return;
      }
      case ir::StmtKind::Assign: {
        const auto* n = s.as<ir::Assign>();
        begin_statement({&n->value});
        b_.CreateStore(converted(n->value, var_dtype(n->id)), var_slot(n->id));
        return;
      }
      case ir::StmtKind::Store: return emit_store(s.as<ir::Store>());
      case ir::StmtKind::Atomic: return emit_atomic(s.as<ir::Atomic>());
      case ir::StmtKind::If: return emit_if(s.as<ir::If>());
      case ir::StmtKind::For: return emit_for(s.as<ir::For>());
      case ir::StmtKind::Loop: return emit_loop(s.as<ir::Loop>());
      case ir::StmtKind::Break:
        TACK_CHECK(!loops_.empty());
        b_.CreateBr(loops_.back().exit);
        dead_block();
        return;
      case ir::StmtKind::Continue:
        TACK_CHECK(!loops_.empty());
        b_.CreateBr(loops_.back().next);
        dead_block();
        return;
      case ir::StmtKind::Barrier:
      case ir::StmtKind::GroupReduce:
        TACK_UNREACHABLE("llvm_gen: barriers and group reductions must be lowered by passes::lower_workgroups");
      case ir::StmtKind::Print: TACK_UNREACHABLE("llvm_gen: prints must be lowered by passes::lower_prints");
    }
    TACK_UNREACHABLE("llvm_gen: unknown statement kind");
  }

  // Code after a Break or Continue is unreachable; it goes to a block of its own.
  void dead_block() { b_.SetInsertPoint(BasicBlock::Create(c_, "dead", fn_)); }

  BasicBlock* block(const char* name) { return BasicBlock::Create(c_, name, fn_); }

  Value* element_ptr(const ir::ArrayRef& a, const ir::Expr& index) {
    DType t = array_dtype(a);
    return b_.CreateInBoundsGEP(detail::memory_type(c_, t), array_base(a), converted(index, DType::I64));
  }
  llvm::Align element_align(DType t) const { return llvm::Align(dtype_size(t)); }

  void emit_store(const ir::Store* n) {
    begin_statement({&n->index, &n->value});
    DType t = array_dtype(n->array);
    Value* ptr = element_ptr(n->array, n->index);
    Value* v = detail::to_memory(b_, t, converted(n->value, t));
    b_.CreateAlignedStore(v, ptr, element_align(t));
  }

  void emit_atomic(const ir::Atomic* n) {
    begin_statement({&n->index, &n->value, &n->compare});
    DType t = array_dtype(n->array);
    TACK_CHECK(t != DType::Bool);
    Value* ptr = element_ptr(n->array, n->index);
    Value* v = converted(n->value, t);
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
        Value* expect = b_.CreateBitCast(converted(n->compare, t), bits);
        Value* pair = b_.CreateAtomicCmpXchg(ptr, expect, b_.CreateBitCast(v, bits), align,
                                             llvm::AtomicOrdering::SequentiallyConsistent,
                                             llvm::AtomicOrdering::SequentiallyConsistent);
        old = b_.CreateBitCast(b_.CreateExtractValue(pair, 0), detail::value_type(c_, t));
        break;
      }
    }
    b_.CreateStore(emit_cast(b_, t, let_dtype(n->result), old), let_slot(n->result));
  }

  // old = *ptr; do { new = f(old) } while (!cmpxchg(ptr, old, new)); returns the value replaced.
  template <class F>
  Value* cas_loop(Value* ptr, DType t, llvm::Align align, F&& f) {
    llvm::Type* ty = detail::value_type(c_, t);
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

  void emit_if(const ir::If* n) {
    begin_statement({&n->cond});
    Value* c = converted(n->cond, DType::Bool);
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
  void emit_for(const ir::For* n) {
    begin_statement({&n->lo, &n->hi});
    Value* lo = converted(n->lo, DType::I64);
    Value* hi = converted(n->hi, DType::I64);
    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* head = block("for.head");
    BasicBlock* body = block("for.body");
    BasicBlock* latch = block("for.next");
    BasicBlock* exit = block("for.end");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i" + std::to_string(n->index));
    i->addIncoming(lo, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, hi), body, exit);
    b_.SetInsertPoint(body);
    b_.CreateStore(i, let_slot(n->index));
    loops_.push_back({exit, latch});
    stmt(n->body);
    loops_.pop_back();
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    // i < hi <= INT64_MAX, so the increment cannot overflow: nsw is exact, never poison.
    i->addIncoming(b_.CreateNSWAdd(i, b_.getInt64(1)), latch);
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
  }

  // Repeats until a Break; Continue starts the next iteration.
  void emit_loop(const ir::Loop* n) {
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

  // ---- the parallel loop -------------------------------------------------------------

  // for (i = start; i < end; ++i) body
  void emit_1d() {
    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* body = block("par.body");
    BasicBlock* latch = block("par.next");
    BasicBlock* exit = block("exit");
    b_.CreateCondBr(b_.CreateICmpSLT(start_, end_), body, exit);
    b_.SetInsertPoint(body);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "idx0");
    i->addIncoming(start_, pre);
    loop_index_ = {i};
    stmt(k_.body);
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    Value* next = b_.CreateNSWAdd(i, b_.getInt64(1));
    i->addIncoming(next, latch);
    b_.CreateCondBr(b_.CreateICmpSLT(next, end_), body, exit);
    b_.SetInsertPoint(exit);
    b_.CreateRetVoid();
  }

  // Row-major N-D: `start` is decomposed into indices once; each row of the innermost
  // dimension then runs as a counted loop of min(extent - index, end - flat) iterations.
  void emit_nd() {
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
    BasicBlock* body = block("par.body");
    BasicBlock* latch = block("par.next");
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
    Value* len =
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateSub(ext[n - 1], j0), b_.CreateSub(end_, flat));
    Value* j_end = b_.CreateNSWAdd(j0, len);
    b_.CreateBr(body);

    b_.SetInsertPoint(body);
    llvm::PHINode* j = b_.CreatePHI(i64, 2, "j");
    j->addIncoming(j0, row);
    loop_index_ = outer;
    loop_index_[n - 1] = j;
    stmt(k_.body);
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    Value* j_next = b_.CreateNSWAdd(j, b_.getInt64(1));
    j->addIncoming(j_next, latch);
    b_.CreateCondBr(b_.CreateICmpSLT(j_next, j_end), body, row_end);

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

  // ---- expressions ----------------------------------------------------------------

  // e converted to dtype `to` as Cast does (stores, Lets and Vars convert what they are given).
  Value* converted(const ir::Expr& e, DType to) { return emit_cast(b_, e->type.dtype, to, expr(e)); }

  Value* expr(const ir::Expr& e) {
    TACK_CHECK(e && e->type.is_strong());
    auto it = cache_.find(e.get());
    if (it != cache_.end()) return it->second;
    Value* v = compute(e);
    cache_.emplace(e.get(), v);
    return v;
  }

  Value* compute(const ir::Expr& e) {
    switch (e->kind) {
      case ir::ExprKind::Const: return detail::emit_const(b_, e->type.dtype, ir::const_bits(e.as<ir::Const>()));
      case ir::ExprKind::ScalarParam: {
        int p = e.as<ir::ScalarParam>()->param;
        TACK_CHECK(p >= 0 && static_cast<std::size_t>(p) < k_.params.size() &&
                   k_.params[static_cast<std::size_t>(p)].kind == ir::ParamKind::Scalar);
        DType pt = k_.params[static_cast<std::size_t>(p)].dtype;
        TACK_CHECK(pt == e->type.dtype);
        return params_[static_cast<std::size_t>(p)].scalar;
      }
      case ir::ExprKind::ArrayDim: {
        const auto* n = e.as<ir::ArrayDim>();
        const ParamValues& pv = array_param(ir::ArrayRef{ir::ArrayRef::Space::Param, n->param});
        if (n->dim == ir::ArrayDim::kSize) return pv.size;
        TACK_CHECK(n->dim >= 0 && n->dim < k_.params[static_cast<std::size_t>(n->param)].rank);
        return pv.extent[static_cast<std::size_t>(n->dim)];
      }
      case ir::ExprKind::LoopIndex: {
        int d = e.as<ir::LoopIndex>()->dim;
        TACK_CHECK(d >= 0 && static_cast<std::size_t>(d) < loop_index_.size());
        return loop_index_[static_cast<std::size_t>(d)];
      }
      case ir::ExprKind::GroupValue:
        TACK_UNREACHABLE("llvm_gen: group values must be lowered by passes::lower_workgroups");
      case ir::ExprKind::LetRef: {
        int id = e.as<ir::LetRef>()->id;
        return b_.CreateLoad(detail::value_type(c_, let_dtype(id)), let_slot(id));
      }
      case ir::ExprKind::VarRef: {
        int id = e.as<ir::VarRef>()->id;
        return b_.CreateLoad(detail::value_type(c_, var_dtype(id)), var_slot(id));
      }
      case ir::ExprKind::Load: {
        const auto* n = e.as<ir::Load>();
        DType t = array_dtype(n->array);
        Value* v = b_.CreateAlignedLoad(detail::memory_type(c_, t), element_ptr(n->array, n->index), element_align(t));
        return emit_cast(b_, t, e->type.dtype, detail::from_memory(b_, t, v));
      }
      case ir::ExprKind::Op: {
        const auto* n = e.as<ir::Op>();
        int arity = n->arity();
        DType t = n->args[0]->type.dtype;
        Value* args[3] = {};
        for (int i = 0; i < arity; ++i) {
          const ir::Expr& a = n->args[static_cast<std::size_t>(i)];
          TACK_CHECK(a && a->type.dtype == t);
          args[i] = expr(a);
        }
        bool contract = false;
        if (is_float(t)) {
          if (n->op == ir::OpCode::Mul) {
            contract = contract_.count(e.get()) != 0;
          } else if (n->op == ir::OpCode::Add || n->op == ir::OpCode::Sub) {
            contract = contract_.count(n->args[0].get()) != 0 || contract_.count(n->args[1].get()) != 0;
          }
        }
        return emit_op(b_, n->op, t, args, contract);
      }
      case ir::ExprKind::Select: {
        const auto* n = e.as<ir::Select>();
        Value* c = converted(n->cond, DType::Bool);
        Value* a = converted(n->if_true, e->type.dtype);
        Value* f = converted(n->if_false, e->type.dtype);
        return b_.CreateSelect(c, a, f);
      }
      case ir::ExprKind::Cast: {
        const auto* n = e.as<ir::Cast>();
        return emit_cast(b_, n->value->type.dtype, e->type.dtype, expr(n->value));
      }
      case ir::ExprKind::TexSample: {
        const auto* n = e.as<ir::TexSample>();
        TACK_CHECK(n->param >= 0 && static_cast<std::size_t>(n->param) < k_.params.size() &&
                   k_.params[static_cast<std::size_t>(n->param)].kind == ir::ParamKind::Texture3D &&
                   !k_.params[static_cast<std::size_t>(n->param)].hardware_texture);  // the CPU samples in software
        const ParamValues& pv = params_[static_cast<std::size_t>(n->param)];
        detail::TextureValues tex{pv.data, pv.extent[0], pv.extent[1], pv.extent[2]};
        Value* r = detail::emit_texture_sample(b_, tex, converted(n->u, DType::F32), converted(n->v, DType::F32),
                                               converted(n->w, DType::F32));
        return emit_cast(b_, DType::F32, e->type.dtype, r);
      }
    }
    TACK_UNREACHABLE("llvm_gen: unknown expression kind");
  }

  struct LoopTargets {
    BasicBlock* exit;  // Break
    BasicBlock* next;  // Continue
  };

  const ir::Kernel& k_;
  llvm::LLVMContext& c_;
  llvm::Function* fn_;
  llvm::IRBuilder<> b_;
  std::vector<ParamValues> params_;
  Value* start_ = nullptr;
  Value* end_ = nullptr;
  std::vector<Value*> loop_index_;
  std::vector<llvm::AllocaInst*> let_slots_, var_slots_;
  std::vector<Value*> shared_;
  std::vector<LoopTargets> loops_;
  std::unordered_map<const ir::ExprNode*, Value*> cache_;
  std::unordered_set<const ir::ExprNode*> contract_;
};

// void tack_chunk_<name>(ptr pack, i64 start, i64 end): loads each argument from its slot and calls the kernel.
void emit_chunk(const ir::Kernel& k, llvm::Module& m, llvm::Function* kernel, const std::string& name) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, i64, i64}, false);
  auto* fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, name, m);
  fn->setDoesNotThrow();
  fn->addFnAttr("no-trapping-math", "true");
  llvm::Argument* pack = fn->getArg(0);
  pack->setName("pack");
  pack->addAttr(llvm::Attribute::NoCapture);
  pack->addAttr(llvm::Attribute::ReadOnly);
  fn->getArg(1)->setName("start");
  fn->getArg(2)->setName("end");
  llvm::IRBuilder<> b(BasicBlock::Create(c, "entry", fn));
  PackLayout layout = pack_layout(k);
  std::vector<Value*> args;
  auto load_slot = [&](int slot, llvm::Type* ty) -> Value* {
    Value* at = b.CreateConstInBoundsGEP1_64(i64, pack, static_cast<std::uint64_t>(slot));
    return b.CreateAlignedLoad(ty, at, llvm::Align(8));
  };
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ir::Param& p = k.params[i];
    int s = layout.first_slot[i];
    switch (p.kind) {
      case ir::ParamKind::Array:
        args.push_back(load_slot(s, ptr));
        for (int d = 0; d < 1 + p.rank; ++d) args.push_back(load_slot(s + 1 + d, i64));
        break;
      case ir::ParamKind::Scalar: {
        Value* bits = load_slot(s, i64);
        llvm::Type* ty = detail::memory_type(c, p.dtype);
        if (is_float(p.dtype)) {
          unsigned w = static_cast<unsigned>(dtype_bits(p.dtype));
          args.push_back(b.CreateBitCast(b.CreateTrunc(bits, b.getIntNTy(w)), ty));
        } else {
          args.push_back(b.CreateTrunc(bits, ty));  // a no-op for 64-bit types
        }
        break;
      }
      case ir::ParamKind::Texture3D:
        args.push_back(load_slot(s, ptr));
        for (int d = 0; d < 3; ++d) args.push_back(load_slot(s + 1 + d, i64));
        break;
    }
  }
  args.push_back(fn->getArg(1));
  args.push_back(fn->getArg(2));
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
}

}  // namespace

LlvmModule generate_llvm(const ir::Kernel& typed, llvm::LLVMContext& context, bool noalias) {
  TACK_CHECK(typed.typed && typed.body);
  // Workgroup kernels come lowered (one launch iteration per group, no collectives left).
  TACK_CHECK(typed.launch == ir::LaunchKind::Parallel || typed.dims.size() == 1);
  TACK_CHECK(typed.launch == ir::LaunchKind::Workgroup || typed.shared.empty());
  TACK_CHECK(!typed.dims.empty() && typed.dims.size() <= 4);
  LlvmModule out;
  out.kernel_symbol = kernel_entry_name(typed.name);
  out.chunk_symbol = chunk_entry_name(typed.name);
  out.module = std::make_unique<llvm::Module>("tack." + typed.name, context);
  llvm::Module& m = *out.module;

  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(context), kernel_param_types(typed, context), false);
  // Internal and always inlined: O3 folds the kernel into the chunk wrapper and drops it, so its body is
  // optimized and compiled once; the chunk is the one exported symbol.
  auto* fn = llvm::Function::Create(fty, llvm::GlobalValue::InternalLinkage, out.kernel_symbol, m);
  fn->setDoesNotThrow();
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  fn->addFnAttr("no-trapping-math", "true");  // FP exceptions are never read; results are unchanged
  unsigned a = 0;
  for (const ir::Param& p : typed.params) {
    switch (p.kind) {
      case ir::ParamKind::Array:
        fn->getArg(a)->addAttr(llvm::Attribute::NoCapture);
        if (noalias) fn->getArg(a)->addAttr(llvm::Attribute::NoAlias);
        a += 2 + static_cast<unsigned>(p.rank);
        break;
      case ir::ParamKind::Scalar: a += 1; break;
      case ir::ParamKind::Texture3D:
        fn->getArg(a)->addAttr(llvm::Attribute::NoCapture);
        fn->getArg(a)->addAttr(llvm::Attribute::ReadOnly);
        if (noalias) fn->getArg(a)->addAttr(llvm::Attribute::NoAlias);
        a += 4;
        break;
    }
  }

  KernelEmitter(typed, m, fn).emit();
  emit_chunk(typed, m, fn, out.chunk_symbol);

#ifndef NDEBUG
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(m, &os)) {
    os.flush();
    std::string msg = "llvm_gen produced an invalid module for kernel '" + typed.name + "': " + err;
    tack::detail::internal_error(__FILE__, __LINE__, msg.c_str());
  }
#endif
  return out;
}

}  // namespace tack::codegen
