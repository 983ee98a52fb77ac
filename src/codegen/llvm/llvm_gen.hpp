// Typed Tack IR to LLVM IR for the CPU backend. No LLVM header is included
// here, so only the files that build modules pay for LLVM's headers.
#pragma once

#include "codegen/llvm/vector_math.hpp"
#include "abi/pack_layout.hpp"
#include "ir/ir.hpp"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tack::codegen {

struct LlvmModule {
  std::unique_ptr<llvm::Module> module;
  std::string kernel_symbol;  // void tack_kernel_<name>(args..., i64 start, i64 end)
  std::string chunk_symbol;   // void tack_chunk_<name>(const uint64_t* pack, i64 start, i64 end)
};

// Generates the module for a typed Parallel kernel, or a Workgroup kernel lowered
// by passes::lower_workgroups (one iteration per group). With `noalias`, array
// pointers are marked noalias (the call's arrays are proven disjoint). `lanes`
// > 0 runs a Parallel kernel's work-items in SIMD gangs of that many
// (analysis::plan_simd chooses it); 0 runs them one at a time. With `private_adds` (and `noalias`), the adds
// into the arrays analysis::plan_private_adds names are plain: the launch hands each thread a private copy.
LlvmModule generate_llvm(const ir::Kernel& typed, llvm::LLVMContext& context, bool noalias, unsigned lanes = 0,
                         const VectorMath& math = {}, bool private_adds = false);

}  // namespace tack::codegen
