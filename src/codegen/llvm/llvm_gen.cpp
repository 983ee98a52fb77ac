// Typed Tack IR to LLVM IR for the CPU backend: the module, the kernel
// function's signature and attributes, and the chunk wrapper beside it. The
// body is KernelEmitter's (llvm_kernel_emitter.hpp: its frame, statements,
// expressions and launch loops each in a file of their own); the chunk wrapper
// is in llvm_chunk.cpp; operators, casts and texture samples in llvm_ops.cpp.
//
// Shape of the generated code:
// - Every Let and Var is an alloca in the entry block, stored where it is bound
//   and loaded where it is read; the pipeline's SROA/mem2reg turns them into SSA values.
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
// - On the SIMD path (lanes > 0) each launch-loop iteration runs a gang of
//   work-items of the innermost dimension, one per vector lane, under an
//   execution mask (llvm_gang_*.cpp; docs/cpu-codegen.md).
// - No fast-math flags, except `contract` on a float product whose only use is
//   a float add or subtract of the same statement, and on that add or subtract
//   (docs/semantics.md: `a*b+c` in one expression may fuse, a product with another use
//   may not); none at all in a kernel made with fp_contract off.
#include "codegen/llvm/llvm_gen.hpp"

#include "analysis/private_adds.hpp"
#include "codegen/identifiers.hpp"
#include "codegen/llvm/llvm_kernel_emitter.hpp"
#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <string>
#include <vector>

namespace tack::codegen {

namespace {

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
      case ir::ParamKind::Texture:
        types.push_back(ptr);
        types.insert(types.end(), 3, i64);
        break;
    }
  }
  types.push_back(i64);  // start
  types.push_back(i64);  // end
  return types;
}

}  // namespace

LlvmModule generate_llvm(const ir::Kernel& typed, llvm::LLVMContext& context, bool noalias, unsigned lanes,
                         const VectorMath& math, bool private_adds) {
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
  // Internal and always inlined: the pipeline folds the kernel into the chunk wrapper and drops it, so its body is
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
      case ir::ParamKind::Texture:
        fn->getArg(a)->addAttr(llvm::Attribute::NoCapture);
        fn->getArg(a)->addAttr(llvm::Attribute::ReadOnly);
        if (noalias) fn->getArg(a)->addAttr(llvm::Attribute::NoAlias);
        a += 4;
        break;
    }
  }

  detail::KernelEmitter emitter(typed, m, fn, lanes, math);
  // With aliasing arrays another parameter may read what a plain add writes.
  emitter.set_distinct_arrays(noalias);
  if (noalias) {
    const analysis::RowScatter rows = analysis::plan_row_scatter(typed);
    if (private_adds) emitter.set_private_adds(analysis::plan_private_adds(typed, rows));
    emitter.set_plain_atomics(rows.plain);
  }
  emitter.emit();
  detail::emit_chunk(typed, m, fn, out.chunk_symbol);

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
