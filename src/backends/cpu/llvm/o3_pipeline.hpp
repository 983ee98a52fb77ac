// The optimization the CPU backend applies to every kernel: LLVM's O3 pipeline
// with loop and SLP vectorization, unrolling and interleaving. Shared by the JIT
// and by the code generator's tests, so both check the same pipeline.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tack::backends::cpu {
void run_o3(llvm::Module& module, llvm::TargetMachine& target);
}
