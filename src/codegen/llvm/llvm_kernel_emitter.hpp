// Private to src/codegen/llvm: the emitter of one kernel function's body (see
// llvm_gen.cpp for the shape of the code). Its parts live in llvm_kernel_emitter.cpp
// (parameters and storage), llvm_statements.cpp, llvm_expressions.cpp and
// llvm_launch_loops.cpp, llvm_min_max_folds.cpp; only those files and llvm_gen.cpp include this header.
#pragma once

#include "analysis/lane_uniformity.hpp"
#include "analysis/min_max_folds.hpp"
#include "analysis/subscripts.hpp"
#include "codegen/llvm/counted_loop.hpp"
#include "codegen/llvm/vector_math.hpp"
#include "ir/ir.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <array>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tack::codegen::detail {

// The LLVM values of one kernel parameter inside the kernel function.
struct ParamValues {
  llvm::Value* data = nullptr;           // arrays and textures
  llvm::Value* size = nullptr;           // arrays: element count
  std::array<llvm::Value*, 4> extent{};  // arrays: shape; textures: width, height, depth
  llvm::Value* scalar = nullptr;         // scalars, in their register type
};

// The blocks of a kernel's for loop, on either path.
inline constexpr CountedLoop::Names kForNames{"for.head", "for.body", "for.next", "for.end"};

class KernelEmitter {
 public:
  // `gang` > 0 runs the parallel loop `gang` work-items at a time, one per SIMD
  // lane (llvm_gang_*.cpp); 0 runs one work-item per iteration.
  // Transcendentals of vectors go to `math` (llvm_ops.hpp).
  KernelEmitter(const ir::Kernel& k, llvm::Module& m, llvm::Function* fn, unsigned gang = 0,
                const codegen::VectorMath& math = {});

  // The whole body: parameters bound, shared arrays allocated, then the launch loop around the IR's body.
  void emit();
  // By parameter: atomic adds into it are plain read-modify-writes (analysis::plan_row_scatter; the runtime
  // schedules the launch so that no two threads reach one element).
  void set_plain_atomics(std::vector<bool> params) { plain_atomics_ = std::move(params); }
  // Parameters whose adds go into a copy private to the running thread (analysis/private_adds.hpp): plain too.
  void set_private_adds(std::vector<bool> params) { private_adds_ = std::move(params); }
  // The call's arrays are proven distinct (no two overlap).
  void set_distinct_arrays(bool distinct) { distinct_arrays_ = distinct; }

 private:
  // ---- parameters and storage (llvm_kernel_emitter.cpp) ----
  void bind_params();
  const ParamValues& array_param(const ir::ArrayRef& a) const;
  DType array_dtype(const ir::ArrayRef& a) const;
  llvm::Value* array_base(const ir::ArrayRef& a) const;
  void alloc_shared();
  void alloc_locals();
  llvm::AllocaInst* slot(std::vector<llvm::AllocaInst*>& slots, const std::vector<ir::Type>& types, int id,
                         const char* prefix, bool varying, bool narrow = false);
  llvm::AllocaInst* let_slot(int id) { return slot(let_slots_, k_.lets, id, "let", gang_ && lanes_->let_varying(id)); }
  llvm::AllocaInst* var_slot(int id) {
    return slot(var_slots_, k_.vars, id, "var", gang_ && lanes_->var_varying(id), narrow_var(id));
  }
  // An i64 Var held in 32 bits (analysis/narrow_vars.hpp): truncated where assigned, sign-extended where read.
  bool narrow_var(int id) const { return !narrow_vars_.empty() && narrow_vars_[static_cast<std::size_t>(id)]; }
  llvm::Value* to_var(int id, llvm::Value* v);
  DType let_dtype(int id) const { return k_.lets[static_cast<std::size_t>(id)].dtype; }
  DType var_dtype(int id) const { return k_.vars[static_cast<std::size_t>(id)].dtype; }
  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(c_, name, fn_); }
  // A stack slot at the top of the entry block, where mem2reg and SROA look for them.
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const llvm::Twine& name);

  // ---- statements (llvm_statements.cpp) ----
  void begin_statement(std::initializer_list<const ir::Expr*> roots);
  void stmt(const ir::Stmt& s);
  void emit_block(const std::vector<ir::Stmt>& stmts, std::size_t from);
  void dead_block();
  llvm::Value* element_ptr(const ir::ArrayRef& a, const ir::Expr& index);
  llvm::Value* element_ptr(const ir::ArrayRef& a, llvm::Value* index);
  llvm::Align element_align(DType t) const { return llvm::Align(dtype_size(t)); }
  void emit_store(const ir::Store* n);
  void emit_atomic(const ir::Atomic* n);
  llvm::Value* atomic_at(const ir::Atomic* n, llvm::Value* ptr, llvm::Value* v, llvm::Value* compare);
  bool plain_atomic(const ir::Atomic* n) const;
  bool row_scatter_add(const ir::Atomic* n) const;
  bool private_add(const ir::Atomic* n) const;
  llvm::Value* plain_add_at(const ir::Atomic* n, llvm::Value* ptr, llvm::Value* v);
  template <class F>
  llvm::Value* cas_loop(llvm::Value* ptr, DType t, llvm::Align align, F&& f);
  void emit_if(const ir::If* n);
  void emit_for(const ir::For* n);
  void emit_counted_for(const ir::For* n, llvm::Value* lo, llvm::Value* hi);
  // ---- min/max folds (llvm_min_max_folds.cpp) ----
  void emit_min_max_fold(const ir::For* n, const analysis::MinMaxFold& fold, llvm::Value* lo, llvm::Value* hi);
  void emit_loop(const ir::Loop* n);

  // ---- the parallel loop (llvm_launch_loops.cpp) ----
  void emit_1d();
  void emit_nd();
  void emit_row(llvm::Value* lo, llvm::Value* hi);
  void no_vectorize(llvm::Instruction* latch_branch);

  // ---- the SIMD path (llvm_gang_values.cpp, llvm_gang_memory.cpp, llvm_gang_control.cpp) ----
  llvm::Type* vec(llvm::Type* scalar) const;
  llvm::Value* splat(llvm::Value* v);
  llvm::Value* lane_ids();  // <0, 1, ..., gang - 1> as i64
  static bool is_vec(const llvm::Value* v);
  static bool holds_vec(const llvm::AllocaInst* slot);  // a varying Let's or Var's slot
  llvm::Value* shaped_for(llvm::AllocaInst* slot, llvm::Value* v);
  llvm::Value* exec();  // the lanes running now
  void set_exec(llvm::Value* mask);
  llvm::Value* any(llvm::Value* mask);
  llvm::Value* no_lanes();
  llvm::AllocaInst* mask_slot();  // an entry-block <gang x i1>
  llvm::Value* local_row(const ir::ArrayRef& a, llvm::Value* index);
  llvm::Value* local_lanes(const ir::ArrayRef& a, llvm::Value* index);
  llvm::Value* gang_load(const ir::Load* n, DType to);
  void gang_store(const ir::Store* n);
  void gang_atomic(const ir::Atomic* n);
  void store_lanes(llvm::Value* v, llvm::Value* first, llvm::Align align);
  llvm::Value* load_lanes(llvm::Type* vt, llvm::Value* first, llvm::Align align);
  bool read_then_write(const ir::Stmt& read, const ir::Stmt& write);
  void gang_read_then_write(const ir::Let* let, const ir::Store* store);
  struct RecordField {
    std::int64_t size;                 // elements per record, one record per lane
    std::int64_t field;                // the element read of each, from 0 to size - 1
    const ir::Expr* record = nullptr;  // the index's record number (u in size * u + k)
    std::int64_t block_offset = 0;     // the block's first element less size * u (a multiple of size)
  };
  std::optional<RecordField> record_field(const ir::Expr& index) const;
  llvm::Value* record_field_load(const ir::ArrayRef& a, const RecordField& f, llvm::Value* index);
  llvm::Value* record_block(const ir::ArrayRef& a, std::int64_t size, llvm::Value* start, bool whole_first);
  // ---- the gang's own record blocks, loaded at the top of each gang (llvm_gang_record_blocks.cpp) ----
  struct GangBlock {
    ir::ArrayRef array;
    std::int64_t size;
    std::int64_t block_offset;
    llvm::Value* block = nullptr;  // this gang's, while its body is emitted
  };
  std::vector<GangBlock> gang_blocks_;
  void plan_gang_blocks();
  void load_gang_blocks(llvm::Value* gang_start);
  void drop_gang_blocks();
  bool own_records(const RecordField& f) const;
  const GangBlock* planned_block(const ir::ArrayRef& a, const RecordField& f) const;
  llvm::Value* gang_block(const ir::ArrayRef& a, const RecordField& f) const;
  llvm::Value* gather(llvm::Type* vt, llvm::Value* addresses, llvm::Align align);
  void scatter(llvm::Value* v, llvm::Value* addresses, llvm::Align align);
  llvm::Value* running_or_scratch(llvm::Value* addresses);
  llvm::Value* every_lane();
  template <class F>
  llvm::Value* by_lanes_running(llvm::Value* mask, F&& emit);
  void gang_if(const ir::If* n, llvm::Value* cond);
  bool needs_a_lane(const ir::Stmt& s) const;
  static bool cheaper_than_a_branch(const ir::Stmt& side);
  void gang_for(const ir::For* n);
  void gang_items(const ir::For* n);
  llvm::Value* gang_block(const ir::Op* n);
  void gang_loop(const ir::Loop* n);
  void gang_escape(bool is_break);
  llvm::Value* continued_lanes();
  void park(llvm::Value* lanes);
  llvm::Value* run_side(llvm::Value* lanes, const ir::Stmt& side, const char* name, const char* end_name);
  void masked_body(const ir::Stmt& body, llvm::BasicBlock* exit, llvm::BasicBlock* latch, llvm::AllocaInst* continued);
  // Lane loops over the lanes whose bits are set in `bits` (running_bits(): lane l at bit l), in lane order.
  template <class F>
  void for_each_lane_of(llvm::Value* bits, F&& f);
  template <class F>
  void for_each_lane_of_unrolled(llvm::Value* bits, F&& f);
  template <class F>
  void for_each_active_lane(F&& f) {
    for_each_lane_of(running_bits(), f);
  }
  llvm::Value* running_bits();
  llvm::Value* lane_runs(llvm::Value* bits, llvm::Value* lane);
  struct Lanes {
    llvm::Value* value;      // a vector, or a uniform value (null for none)
    llvm::AllocaInst* slot;  // its lanes, for a vector
    llvm::Value* at(llvm::IRBuilderBase& b, llvm::Value* lane) const;
  };
  Lanes lanes_of(llvm::Value* v);
  bool row_add(const ir::Stmt& s);
  std::size_t row_adds(const std::vector<ir::Stmt>& stmts, std::size_t first);
  // ---- private adds, a pass over the lanes per run (llvm_gang_private_adds.cpp) ----
  std::size_t private_adds_run(const std::vector<ir::Stmt>& stmts, std::size_t first) const;
  void gang_private_adds(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count);
  // A run's adds as its pass reads them: Lanes on slots, or values (uniform ones, or before their slots).
  struct PrivateAdds {
    struct Add {
      const ir::Atomic* n;
      Lanes index;             // in the index's own type
      Lanes value;             // unused by a record add's fields
      bool in_record = false;  // a field of a record add, which the record's one add covers
    };
    struct Record {
      std::int64_t size;
      const ir::ArrayRef* source;
      Lanes start;                   // each lane's source record's first element
      llvm::Value* first = nullptr;  // lane 0's, where lane l's is first + size * l (the gang's own records)
    };
    std::vector<Add> adds;
    std::vector<std::optional<Record>> records;  // by add: the record add that add begins
  };
  PrivateAdds private_adds_of(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count);
  void private_adds_pass(const PrivateAdds& run, llvm::Value* bits);
  void plan_lagged_adds();
  void begin_lagged_adds();
  void end_lagged_adds();
  PrivateAdds waiting_adds(std::size_t lag);
  const std::vector<bool>& written_params();
  bool source_written(const ir::ArrayRef& a);
  // A run of adds and Lets (row_adds, private_adds_run): emits the Lets in order, and hands each add to f once its
  // statement has begun.
  template <class F>
  void lets_then_adds(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count, F&& f) {
    for (std::size_t k = first; k < first + count; ++k) {
      const auto* n = stmts[k].as<ir::Atomic>();
      if (!n) {
        stmt(stmts[k]);
        continue;
      }
      begin_statement({&n->index, &n->value});
      f(n);
    }
  }
  void gang_row_adds(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count);
  llvm::Value* lanes_from(llvm::Value* v, std::int64_t shift, llvm::Value* fill);
  void plan_row_carries();
  void begin_row_carries();
  void end_row_carries();

  // ---- expressions (llvm_expressions.cpp) ----
  llvm::Value* converted(const ir::Expr& e, DType to);
  llvm::Value* expr(const ir::Expr& e);
  llvm::Value* compute(const ir::Expr& e);

  struct LoopTargets {
    llvm::BasicBlock* exit;  // Break
    llvm::BasicBlock* next;  // Continue
    // SIMD path, divergent loops: Break and Continue clear lanes instead of branching, and the lanes that
    // continued wait here for the next iteration.
    llvm::AllocaInst* continued = nullptr;
  };

  const ir::Kernel& k_;
  llvm::LLVMContext& c_;
  llvm::Function* fn_;
  llvm::IRBuilder<> b_;
  std::vector<ParamValues> params_;
  llvm::Value* start_ = nullptr;
  llvm::Value* end_ = nullptr;
  std::vector<llvm::Value*> loop_index_;
  std::vector<llvm::AllocaInst*> let_slots_, var_slots_;
  std::vector<bool> narrow_vars_;             // on the SIMD path: analysis::i32_ranged_vars
  std::vector<llvm::Value*> let_values_ssa_;  // by Let id, once its Let statement is emitted
  std::vector<llvm::Value*> shared_;
  // Local arrays: [count] elements on the scalar path; on the SIMD path [count x gang],
  // element i of lane l at i * gang + l, so a uniform index is one vector access.
  std::vector<llvm::Value*> locals_;
  std::vector<LoopTargets> loops_;
  std::unordered_map<const ir::ExprNode*, llvm::Value*> cache_;
  std::unordered_set<const ir::ExprNode*> contract_;
  // The SIMD path.
  unsigned gang_ = 0;
  codegen::VectorMath math_;
  std::unique_ptr<analysis::LaneUniformity> lanes_;
  llvm::AllocaInst* exec_ = nullptr;              // <gang x i1>: the lanes running now
  llvm::AllocaInst* scratch_ = nullptr;           // where gathers and scatters send the lanes not running
  std::vector<bool> plain_atomics_;               // analysis::plan_row_scatter's
  std::vector<bool> private_adds_;
  bool distinct_arrays_ = false;
  std::optional<std::vector<bool>> written_params_;  // written_params(), once asked
  analysis::IndexReader places_;  // where plain adds reach (gang_row_adds)
  // A row of adds whose values past the gang's window wait for the next gang (llvm_gang_row_adds.cpp).
  struct RowCarry {
    std::vector<const ir::Atomic*> adds;     // the row's adds, in order
    std::vector<llvm::AllocaInst*> carried;  // by add: its values for the next gang's window
    llvm::AllocaInst* reach = nullptr;       // <gang x i1>: the lanes of that window some access reached
    llvm::AllocaInst* at = nullptr;          // ptr: that window's first element
  };
  // By the row's first statement, in the body's order (so the code is emitted in one order on every run).
  std::vector<std::pair<const ir::StmtNode*, RowCarry>> row_carries_;
  // A run of private adds at the top of the kernel body whose pass over the lanes runs one gang late, from slots
  // written long before it reads them (llvm_gang_private_adds.cpp).
  struct LaggedAdds {
    const ir::StmtNode* head = nullptr;
    llvm::AllocaInst* bits = nullptr;       // i64: the lanes of the gang whose adds wait (none before a row)
    PrivateAdds shape;                      // the run's adds as they wait: Lanes on slots, a record's first in `firsts`
    std::vector<llvm::AllocaInst*> firsts;  // by add: the slot of a record's `first`
    bool made = false;                      // the run was emitted and its slots made
  };
  std::vector<LaggedAdds> lagged_adds_;
};

// emit(true) where every lane of `mask` runs, emit(false) where some do not, and their results (if any) merged:
// a contiguous access is a plain vector one in the first case, a masked one in the second, since a masked store
// costs many times a plain one on some hosts (AMD's among them) and most gangs run every lane.
template <class F>
inline llvm::Value* KernelEmitter::by_lanes_running(llvm::Value* mask, F&& emit) {
  llvm::BasicBlock* all = block("lanes.all");
  llvm::BasicBlock* some = block("lanes.some");
  llvm::BasicBlock* done = block("lanes.done");
  b_.CreateCondBr(b_.CreateAndReduce(mask), all, some);
  llvm::Value* results[2];
  llvm::BasicBlock* ends[2];
  for (int k = 0; k < 2; ++k) {
    b_.SetInsertPoint(k == 0 ? all : some);
    results[k] = emit(k == 0);
    ends[k] = b_.GetInsertBlock();
    b_.CreateBr(done);
  }
  b_.SetInsertPoint(done);
  if (!results[0]) return nullptr;
  llvm::PHINode* v = b_.CreatePHI(results[0]->getType(), 2);
  v->addIncoming(results[0], ends[0]);
  v->addIncoming(results[1], ends[1]);
  return v;
}

// Runs f(lane) for each lane of `bits` as a loop over the lanes, the lane an i32 the loop counts.
template <class F>
void KernelEmitter::for_each_lane_of(llvm::Value* bits, F&& f) {
  CountedLoop loop(b_, {"lane.head", "lane.run", "lane.next", "lane.done"}, b_.getInt32(0), "lane");
  llvm::PHINode* lane = loop.counter();
  // A lane that is not running skips to the step: the loop is tested at its end.
  b_.CreateCondBr(lane_runs(bits, lane), loop.body(), loop.latch());
  b_.SetInsertPoint(loop.body());
  f(lane);
  b_.CreateBr(loop.latch());
  b_.SetInsertPoint(loop.latch());
  llvm::Value* following = b_.CreateAdd(lane, b_.getInt32(1));
  loop.close(following, b_.CreateICmpULT(following, b_.getInt32(gang_)));
}

// Runs f(lane) for each lane of `bits` written out lane by lane: each lane a constant, so that what f reads at a
// lane is a slot at a fixed offset or an address with a displacement, and each test one bit of a register. For a
// short body (a gang's private adds), which LLVM unrolls only in part.
template <class F>
void KernelEmitter::for_each_lane_of_unrolled(llvm::Value* bits, F&& f) {
  for (unsigned l = 0; l < gang_; ++l) {
    llvm::BasicBlock* run = block("lane.run");
    llvm::BasicBlock* next = block("lane.next");
    llvm::Value* lane = b_.getInt32(l);
    b_.CreateCondBr(lane_runs(bits, lane), run, next);
    b_.SetInsertPoint(run);
    f(lane);
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  }
}

// void tack_chunk_<name>(ptr pack, i64 start, i64 end) (llvm_chunk.cpp): loads each argument from its slot
// of the argument pack and calls the kernel function.
void emit_chunk(const ir::Kernel& k, llvm::Module& m, llvm::Function* kernel, const std::string& name);

}  // namespace tack::codegen::detail
