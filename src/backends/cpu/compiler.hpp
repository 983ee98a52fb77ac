// The CPU backend's compiler as libtack sees it: an interface that
// libtack_llvm.so implements over LLVM and that libtack loads with dlopen at
// the first compile. libtack itself does not link LLVM, so a program whose
// kernels all come from the disk cache never loads libLLVM (about 15 ms of a
// new process: the dynamic linker relocating its 100 MB) nor runs any of it.
#pragma once

#include <cstdint>
#include <string>

namespace tack::ir {
struct Kernel;
}

namespace tack::backends::cpu {

struct CodegenOptions {
  bool noalias = false;  // the call's arrays are proven disjoint
  // Adds into analysis::plan_private_adds' arrays are plain: the launch gives each thread a private copy.
  bool private_adds = false;
  bool simd = true;      // SIMD gangs where the kernel allows (TACK_CPU_SIMD)
  // The process has loaded glibc's libmvec: the SIMD path's transcendentals call it (x86-64).
  bool vector_math = false;
  // Empty: generate for the host. Otherwise the x86-64 LLVM features ("+avx,+avx2,+avx512f") of the
  // target to generate for instead; ir_text() only, so that the inspect golden's text does not depend
  // on the machine that writes or checks it (compile() refuses it: no TargetMachine is made for it).
  std::string pinned_x86_features;
};

class Compiler {
 public:
  // Bumped whenever this interface changes: a plugin of another version is refused.
  static constexpr std::uint32_t kInterfaceVersion = 5;

  virtual ~Compiler() = default;
  // Generates, optimizes (llvm/pass_pipeline.hpp) and emits relocatable object code (PIC, small
  // code model) for the host CPU. Thread-safe.
  virtual std::string compile(const ir::Kernel& typed, const CodegenOptions& options, std::string* chunk_symbol,
                              double* codegen_ms, double* compile_ms) = 0;
  // LLVM IR text of a typed kernel before optimization (tack::inspect), after a
  // comment line saying which path (SIMD gangs or scalar) was chosen and why.
  virtual std::string ir_text(const ir::Kernel& typed, const CodegenOptions& options) = 0;
  // Links object code into a JIT library of LLJIT's own; returns the symbol's address.
  virtual void* load_with_lljit(const std::string& object, const std::string& symbol) = 0;
  // "triple|cpu|features" as LLVM detects the host (for hosts host_cpu_id() does not read).
  virtual std::string host_target() = 0;
};

// The process's compiler, loaded from libtack_llvm.so beside libtack on first
// use. Throws BackendUnavailable naming the file and the loader's message when
// it cannot be loaded (a failed load is tried again at the next use).
Compiler& llvm_compiler();

// The plugin file's path, size and modification time, read without loading it: the CPU's disk-cache keys name
// it, since the code generator lives in the plugin and libtack's build id does not change with it.
const std::string& compiler_plugin_identity();

// Loads the plugin at `path` and makes its compiler (what llvm_compiler() does
// once); BackendUnavailable when the file is missing, is not the plugin, or is
// another version's. For tests.
Compiler* load_compiler_plugin(const std::string& path);

}  // namespace tack::backends::cpu

// The plugin's one export.
extern "C" tack::backends::cpu::Compiler* tack_make_llvm_compiler(std::uint32_t interface_version);
