// Private to src/codegen/llvm: the emitter of one kernel function's body (see
// llvm_gen.cpp for the shape of the code). Its parts live in llvm_kernel_emitter.cpp
// (parameters and storage), llvm_statements.cpp, llvm_expressions.cpp and
// llvm_launch_loops.cpp; only those files and llvm_gen.cpp include this header.
#pragma once

#include "ir/ir.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <array>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::codegen::detail {

// The LLVM values of one kernel parameter inside the kernel function.
struct ParamValues {
  llvm::Value* data = nullptr;           // arrays and textures
  llvm::Value* size = nullptr;           // arrays: element count
  std::array<llvm::Value*, 4> extent{};  // arrays: shape; textures: width, height, depth
  llvm::Value* scalar = nullptr;         // scalars, in their register type
};

class KernelEmitter {
 public:
  KernelEmitter(const ir::Kernel& k, llvm::Module& m, llvm::Function* fn)
      : k_(k), c_(m.getContext()), fn_(fn), b_(m.getContext()) {}

  // The whole body: parameters bound, shared arrays allocated, then the launch loop around the IR's body.
  void emit();

 private:
  // ---- parameters and storage (llvm_kernel_emitter.cpp) ----
  void bind_params();
  const ParamValues& array_param(const ir::ArrayRef& a) const;
  DType array_dtype(const ir::ArrayRef& a) const;
  llvm::Value* array_base(const ir::ArrayRef& a) const;
  void alloc_shared();
  llvm::AllocaInst* slot(std::vector<llvm::AllocaInst*>& slots, const std::vector<ir::Type>& types, int id,
                         const char* prefix);
  llvm::AllocaInst* let_slot(int id) { return slot(let_slots_, k_.lets, id, "let"); }
  llvm::AllocaInst* var_slot(int id) { return slot(var_slots_, k_.vars, id, "var"); }
  DType let_dtype(int id) const { return k_.lets[static_cast<std::size_t>(id)].dtype; }
  DType var_dtype(int id) const { return k_.vars[static_cast<std::size_t>(id)].dtype; }
  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(c_, name, fn_); }

  // ---- statements (llvm_statements.cpp) ----
  void begin_statement(std::initializer_list<const ir::Expr*> roots);
  void stmt(const ir::Stmt& s);
  void dead_block();
  llvm::Value* element_ptr(const ir::ArrayRef& a, const ir::Expr& index);
  llvm::Align element_align(DType t) const { return llvm::Align(dtype_size(t)); }
  void emit_store(const ir::Store* n);
  void emit_atomic(const ir::Atomic* n);
  template <class F>
  llvm::Value* cas_loop(llvm::Value* ptr, DType t, llvm::Align align, F&& f);
  void emit_if(const ir::If* n);
  void emit_for(const ir::For* n);
  void emit_loop(const ir::Loop* n);

  // ---- the parallel loop (llvm_launch_loops.cpp) ----
  void emit_1d();
  void emit_nd();

  // ---- expressions (llvm_expressions.cpp) ----
  llvm::Value* converted(const ir::Expr& e, DType to);
  llvm::Value* expr(const ir::Expr& e);
  llvm::Value* compute(const ir::Expr& e);

  struct LoopTargets {
    llvm::BasicBlock* exit;  // Break
    llvm::BasicBlock* next;  // Continue
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
  std::vector<llvm::Value*> shared_;
  std::vector<LoopTargets> loops_;
  std::unordered_map<const ir::ExprNode*, llvm::Value*> cache_;
  std::unordered_set<const ir::ExprNode*> contract_;
};

// void tack_chunk_<name>(ptr pack, i64 start, i64 end) (llvm_chunk.cpp): loads each argument from its slot
// of the argument pack and calls the kernel function.
void emit_chunk(const ir::Kernel& k, llvm::Module& m, llvm::Function* kernel, const std::string& name);

}  // namespace tack::codegen::detail
