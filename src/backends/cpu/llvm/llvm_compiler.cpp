// libtack_llvm.so: the CPU backend's compiler over LLVM 19, loaded by libtack
// with dlopen at the first compile (backends/cpu/compiler.hpp). Object code is
// the unit of exchange: this emits it, the disk cache stores it, and libtack
// maps it (LoadedObject) without LLVM; load_with_lljit is the fallback for
// hosts and objects that loader does not read.
#include "backends/cpu/compiler.hpp"

#include "analysis/simd_plan.hpp"
#include "backends/cpu/llvm/pass_pipeline.hpp"
#include "codegen/llvm/llvm_gen.hpp"

#include <tack/error.hpp>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Pass.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <vector>

namespace tack::backends::cpu {
namespace {

std::string error_text(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return s;
}

template <class T>
T check(llvm::Expected<T> v, const char* what) {
  if (!v) throw BackendError(std::string("LLVM: ") + what + " failed: " + error_text(v.takeError()));
  return std::move(*v);
}

void check(llvm::Error e, const char* what) {
  if (e) throw BackendError(std::string("LLVM: ") + what + " failed: " + error_text(std::move(e)));
}

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::orc::JITTargetMachineBuilder detect_host() {
  initialize_llvm();
  auto builder = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Position-independent code reaches its constants and callees by relative
  // addresses, so LoadedObject can map it anywhere (static code would need
  // absolute 32-bit addresses); on x86-64 it costs these kernels nothing.
  // The small code model keeps constant-pool and GOT references 32-bit
  // relative (the large one, JITTargetMachineBuilder's default here, needs GOTPC64).
  builder.setRelocationModel(llvm::Reloc::PIC_);
  builder.setCodeModel(llvm::CodeModel::Small);
  return builder;
}

// The code generator's passes less two. Loop Strength Reduction was a quarter
// to a half of a kernel's compile time (Jacobi 34 -> 13 ms, LBM 45 -> 33 ms)
// for no measured run time: x86 addressing modes already take the
// base + index * scale + offset these loops use. X86 cmov Conversion turns a
// conditional move it guesses is on a loop's critical path into a branch:
// a Needleman-Wunsch cell's chain of maxima became branches on the scores,
// which no predictor follows (bench wavefront: 29-31 ms with it, 17-18.5 ms
// without, C++ 16.5-18 ms; no other kernel of the table moved beyond its
// noise, bench/RESULTS.md). Dropped here, per pass manager, rather than with
// LLVM's -disable-lsr / -x86-cmov-converter options, which would change every
// other user of libLLVM in the process.
class CodegenPasses final : public llvm::legacy::PassManager {
 public:
  void add(llvm::Pass* pass) override {
    if (pass->getPassName() == "Loop Strength Reduction" || pass->getPassName() == "X86 cmov Conversion") {
      delete pass;
      return;
    }
    llvm::legacy::PassManager::add(pass);
  }
};

// The widest vector register of the target: the gang width's budget.
unsigned vector_bits(const std::vector<std::string>& features) {
  unsigned bits = 128;  // SSE2 (every x86-64) and NEON
  for (const std::string& f : features) {
    if (f == "+avx512f") bits = std::max(bits, 512u);
    if (f == "+avx" || f == "+avx2") bits = std::max(bits, 256u);
  }
  return bits;
}

// Everything LLVM is made on first need.
struct State {
  std::once_flag builder_made;
  std::optional<llvm::orc::JITTargetMachineBuilder> builder;
  std::once_flag lljit_made;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  // A TargetMachine is not safe to share between threads: each compile takes one
  // from this pool (or makes one) and gives it back.
  std::mutex tm_mutex;
  std::vector<std::unique_ptr<llvm::TargetMachine>> free_tms;
  std::atomic<std::uint64_t> libraries{0};

  llvm::orc::JITTargetMachineBuilder& host() {
    std::call_once(builder_made, [this] { builder = detect_host(); });
    return *builder;
  }
  llvm::orc::LLJIT& lljit() {
    std::call_once(lljit_made, [this] {
      jit = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host()).create(), "creating LLJIT");
    });
    return *jit;
  }
  std::unique_ptr<llvm::TargetMachine> take_tm() {
    {
      std::lock_guard lock(tm_mutex);
      if (!free_tms.empty()) {
        auto tm = std::move(free_tms.back());
        free_tms.pop_back();
        return tm;
      }
    }
    return check(host().createTargetMachine(), "creating a target machine");
  }
  void give_tm(std::unique_ptr<llvm::TargetMachine> tm) {
    std::lock_guard lock(tm_mutex);
    free_tms.push_back(std::move(tm));
  }
};

class LlvmCompiler final : public Compiler {
 public:
  std::string compile(const ir::Kernel& typed, const CodegenOptions& options, std::string* chunk_symbol,
                      double* codegen_ms, double* compile_ms) override {
    if (!options.pinned_x86_features.empty())
      throw CompileError("kernel '" + typed.name + "': a pinned target is for ir_text only (a Tack bug)");
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&start] {
      const auto now = std::chrono::steady_clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - start).count();
      start = now;
      return ms;
    };
    llvm::LLVMContext context;
    const analysis::SimdPlan plan = simd_plan(typed, options);
    codegen::LlvmModule gen =
        codegen::generate_llvm(typed, context, options.noalias, plan.lanes, vector_math(options), options.private_adds);
    llvm::Module& m = *gen.module;
    std::string verify_errors;
    llvm::raw_string_ostream verify_os(verify_errors);
    if (llvm::verifyModule(m, &verify_os))
      throw CompileError("kernel '" + typed.name + "': generated LLVM IR is invalid (a Tack bug): " + verify_errors);

    if (codegen_ms) *codegen_ms = elapsed();

    struct Lease {
      State& state;
      std::unique_ptr<llvm::TargetMachine> tm;
      ~Lease() { state.give_tm(std::move(tm)); }
    } lease{state_, state_.take_tm()};
    llvm::TargetMachine& tm = *lease.tm;
    m.setDataLayout(tm.createDataLayout());
    m.setTargetTriple(tm.getTargetTriple().str());

    optimize_module(m, tm, plan.lanes > 0);

    llvm::SmallVector<char, 0> object;
    llvm::raw_svector_ostream os(object);
    CodegenPasses emit;
    if (tm.addPassesToEmitFile(emit, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      throw BackendError("LLVM: the host target cannot emit object files");
    emit.run(m);
    if (compile_ms) *compile_ms = elapsed();
    if (chunk_symbol) *chunk_symbol = gen.chunk_symbol;
    return std::string(object.begin(), object.end());
  }

  std::string ir_text(const ir::Kernel& typed, const CodegenOptions& options) override {
    llvm::LLVMContext context;
    const analysis::SimdPlan plan = simd_plan(typed, options);
    codegen::LlvmModule gen =
        codegen::generate_llvm(typed, context, options.noalias, plan.lanes, vector_math(options), options.private_adds);
    std::string text = "; " + plan.why + "\n";
    llvm::raw_string_ostream os(text);
    gen.module->print(os, nullptr);
    return text;
  }

  void* load_with_lljit(const std::string& object, const std::string& symbol) override {
    llvm::orc::LLJIT& jit = state_.lljit();
    // One JIT library per variant: two variants of a kernel define the same symbol.
    std::string name = "tack_variant_" + std::to_string(state_.libraries.fetch_add(1));
    auto created = jit.createJITDylib(name);
    if (!created) throw BackendError("LLVM: creating a JIT library failed: " + error_text(created.takeError()));
    llvm::orc::JITDylib& lib = *created;
    // libm and the process's other symbols resolve through LLJIT's process-symbols
    // library, which every library createJITDylib makes links to.
    check(jit.addObjectFile(lib, llvm::MemoryBuffer::getMemBufferCopy(object, name)), "adding object code");
    llvm::orc::ExecutorAddr addr = check(jit.lookup(lib, symbol), "looking up the kernel entry");
    return addr.toPtr<void*>();
  }

  // The features code is generated for: the host's, or the pinned target's.
  std::vector<std::string> target_features(const CodegenOptions& options) {
    if (options.pinned_x86_features.empty()) return state_.host().getFeatures().getFeatures();
    return llvm::SubtargetFeatures(options.pinned_x86_features).getFeatures();
  }

  analysis::SimdPlan simd_plan(const ir::Kernel& typed, const CodegenOptions& options) {
    return analysis::plan_simd(typed, vector_bits(target_features(options)), options.simd);
  }

  // libmvec's variants the target can run, where the backend loaded it (x86-64 only: its names are the x86
  // vector ABI's).
  codegen::VectorMath vector_math(const CodegenOptions& options) {
    codegen::VectorMath math;
    const bool x86 = !options.pinned_x86_features.empty() ||
                     state_.host().getTargetTriple().getArch() == llvm::Triple::x86_64;
    if (!options.vector_math || !x86) return math;
    const std::vector<std::string> features = target_features(options);
    auto has = [&](const char* f) { return std::find(features.begin(), features.end(), f) != features.end(); };
    math.isa_128 = 'b';
    math.isa_256 = has("+avx2") ? 'd' : has("+avx") ? 'c' : 0;
    math.isa_512 = has("+avx512f") ? 'e' : 0;
    return math;
  }

  std::string host_target() override {
    llvm::orc::JITTargetMachineBuilder& host = state_.host();
    return host.getTargetTriple().str() + "|" + host.getCPU() + "|" + host.getFeatures().getString();
  }

 private:
  State state_;
};

}  // namespace
}  // namespace tack::backends::cpu

extern "C" __attribute__((visibility("default"))) tack::backends::cpu::Compiler* tack_make_llvm_compiler(
    std::uint32_t interface_version) {
  if (interface_version != tack::backends::cpu::Compiler::kInterfaceVersion) return nullptr;
  return new tack::backends::cpu::LlvmCompiler();  // lives as long as the process
}
