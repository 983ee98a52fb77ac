// The optimization the CPU backend applies to every kernel. The scalar path
// gets LLVM's O3 pipeline with loop and SLP vectorization, unrolling and
// interleaving; the SIMD path, whose gang loops the code generator has already
// vectorized, gets a short pipeline of the passes that change its code (see
// pass_pipeline.cpp). Shared by the JIT and by the code generator's tests, so
// both check the same pipeline.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tack::backends::cpu {

// `gangs`: the module came from the SIMD path (analysis::SimdPlan::lanes > 0).
void optimize_module(llvm::Module& module, llvm::TargetMachine& target, bool gangs);
// A change of either pipeline changes the object code: bump kCpuCacheFormat
// (cpu_backend.cpp) with it, so the disk cache does not serve the old code.

}  // namespace tack::backends::cpu
