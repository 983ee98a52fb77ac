// The CPU backend's compiler and loader: compile() and ir_text() go to LLVM in
// libtack_llvm.so (loaded at the first use, compiler.hpp); load() maps object
// code with Tack's own loader (LLJIT where it cannot), so a cached variant
// needs no LLVM at all.
#pragma once

#include "backends/cpu/compiler.hpp"
#include "ir/ir.hpp"
#include "support/no_copy.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace tack::backends::cpu {

class Jit : support::NoCopy {
 public:
  Jit();
  ~Jit();

  // What makes object code from this JIT differ: LLVM version, target triple and
  // the host CPU. On x86-64 the CPU is named by the raw cpuid words LLVM's host
  // detection reads (and XCR0), which costs microseconds and no LLVM code.
  const std::string& target_id() const { return target_id_; }

  // Generates, optimizes (llvm/pass_pipeline.hpp) and emits object code for a typed kernel. Several
  // threads may compile at once: each takes a TargetMachine of its own from a pool.
  // `codegen_ms` / `compile_ms`, when given, get the time spent making LLVM IR
  // and in LLVM's optimizer and code generator.
  std::string compile(const ir::Kernel& typed, const CodegenOptions& options, std::string* chunk_symbol,
                      double* codegen_ms = nullptr, double* compile_ms = nullptr);
  // How many kernels this process has compiled (not loaded from the cache): for tests.
  static std::uint64_t compile_count();
  // LLVM IR text of a typed kernel before optimization (for tack::inspect).
  std::string ir_text(const ir::Kernel& typed, const CodegenOptions& options);
  // Loaded code: `entry` stays callable while `image` lives.
  struct Loaded {
    void* entry = nullptr;
    std::shared_ptr<void> image;  // null when LLJIT holds the code (for the process's life)
  };
  // Maps object code and returns the address of `symbol`: with LoadedObject
  // where the host allows, else (or when it refuses the object) into a JIT
  // library of LLJIT's own. Neither the optimizer nor the code generator runs here.
  Loaded load(const std::string& object, const std::string& symbol);
  // The same through LLJIT alone (tests compare both loaders).
  Loaded load_with_lljit(const std::string& object, const std::string& symbol);
  // How many objects went to LLJIT since the process started: for tests.
  static std::uint64_t lljit_load_count();
  // How many kernels this Jit has compiled or loaded: unlike the process-wide
  // counts, it ties a device's code to the Jit that made it (for tests).
  std::uint64_t uses() const { return uses_.load(); }

 private:
  std::string target_id_;
  std::atomic<std::uint64_t> uses_{0};
};

// The process's one Jit, shared by every CPU device (each variant's object code is
// loaded on its own, so devices never see each other's symbols). Making it costs
// microseconds; LLVM's target, a TargetMachine and LLJIT are made when first needed.
Jit& shared_jit();

}  // namespace tack::backends::cpu
