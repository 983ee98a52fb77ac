// The CPU backend's compiler: LLVM's O3 pipeline for the host CPU, object
// emission, and ORC LLJIT loading of object code. The interface is LLVM-free so
// the backend's other files do not include LLVM headers.
#pragma once

#include "codegen/llvm/llvm_gen.hpp"

#include <memory>
#include <string>

namespace tack::runtime::cpu {

class Jit {
 public:
  Jit();
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  // What makes object code from this JIT differ: LLVM version, host CPU and features.
  const std::string& target_id() const { return target_id_; }

  // Generates, optimizes at O3 and emits object code for a typed kernel. Several
  // threads may compile at once: each takes a TargetMachine of its own from a pool.
  // `codegen_ms` / `compile_ms`, when given, get the time spent making LLVM IR
  // and in LLVM's optimizer and code generator.
  std::string compile(const ir::Kernel& typed, bool noalias, std::string* chunk_symbol, double* codegen_ms = nullptr,
                      double* compile_ms = nullptr);
  // How many kernels this process has compiled (not loaded from the cache): for tests.
  static std::uint64_t compile_count();
  // LLVM IR text of a typed kernel before optimization (for tack::inspect).
  std::string ir_text(const ir::Kernel& typed, bool noalias);
  // Links object code into its own JIT library and returns the address of `symbol`.
  // Neither the optimizer nor the code generator runs here.
  void* load(const std::string& object, const std::string& symbol);

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string target_id_;
};

// The process's one Jit, shared by every CPU device (object code is loaded into a
// library of its own per variant, so devices never see each other's symbols).
// Made at the first use, or in the background by warm_up_shared_jit(), which
// returns at once: creating LLJIT costs about a millisecond, mostly first touches
// of libLLVM's pages, and a program has other work to do meanwhile.
Jit& shared_jit();
void warm_up_shared_jit();

}  // namespace tack::runtime::cpu
