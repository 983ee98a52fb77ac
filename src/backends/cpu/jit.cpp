// LLVM 19 behind the Jit interface. Object code is the unit of exchange: a cold
// compile emits it, the disk cache stores it, and both paths load it the same
// way, so a cache hit runs neither the optimizer nor the code generator.
#include "backends/cpu/jit.hpp"

#include "backends/cpu/o3_pipeline.hpp"

#include "codegen/llvm/llvm_gen.hpp"

#include <tack/error.hpp>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace tack::runtime::cpu {
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

std::atomic<std::uint64_t> g_compiles{0};

}  // namespace

std::uint64_t Jit::compile_count() { return g_compiles.load(); }

struct Jit::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple()};
  // A TargetMachine is not safe to share between threads: each compile takes one
  // from this pool (or makes one) and gives it back.
  std::mutex tm_mutex;
  std::vector<std::unique_ptr<llvm::TargetMachine>> free_tms;
  std::atomic<std::uint64_t> libraries{0};

  std::unique_ptr<llvm::TargetMachine> take_tm() {
    {
      std::lock_guard lock(tm_mutex);
      if (!free_tms.empty()) {
        auto tm = std::move(free_tms.back());
        free_tms.pop_back();
        return tm;
      }
    }
    return check(builder.createTargetMachine(), "creating a target machine");
  }
  void give_tm(std::unique_ptr<llvm::TargetMachine> tm) {
    std::lock_guard lock(tm_mutex);
    free_tms.push_back(std::move(tm));
  }
};

Jit::Jit() : state_(std::make_unique<State>()) {
  initialize_llvm();
  state_->builder = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
  state_->builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // No TargetMachine yet: a process that only loads cached objects never needs one
  // (0.2 ms of its start-up); the first compile makes it (take_tm).
  state_->jit = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(state_->builder).create(), "creating LLJIT");
  target_id_ = std::string("llvm ") + LLVM_VERSION_STRING + "|" + state_->builder.getTargetTriple().str() + "|" +
               state_->builder.getCPU() + "|" + state_->builder.getFeatures().getString();
}

Jit::~Jit() = default;

std::string Jit::compile(const ir::Kernel& typed, bool noalias, std::string* chunk_symbol, double* codegen_ms,
                         double* compile_ms) {
  g_compiles.fetch_add(1);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&start] {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - start).count();
    start = now;
    return ms;
  };
  llvm::LLVMContext context;
  codegen::LlvmModule gen = codegen::generate_llvm(typed, context, noalias);
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
  } lease{*state_, state_->take_tm()};
  llvm::TargetMachine& tm = *lease.tm;
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(tm.getTargetTriple().str());

  run_o3(m, tm);

  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager emit;
  if (tm.addPassesToEmitFile(emit, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    throw BackendError("LLVM: the host target cannot emit object files");
  emit.run(m);
  if (compile_ms) *compile_ms = elapsed();
  if (chunk_symbol) *chunk_symbol = gen.chunk_symbol;
  return std::string(object.begin(), object.end());
}

std::string Jit::ir_text(const ir::Kernel& typed, bool noalias) {
  llvm::LLVMContext context;
  codegen::LlvmModule gen = codegen::generate_llvm(typed, context, noalias);
  std::string text;
  llvm::raw_string_ostream os(text);
  gen.module->print(os, nullptr);
  return text;
}

void* Jit::load(const std::string& object, const std::string& symbol) {
  llvm::orc::LLJIT& jit = *state_->jit;
  // One JIT library per variant: two variants of a kernel define the same symbol.
  std::string name = "tack_variant_" + std::to_string(state_->libraries.fetch_add(1));
  auto created = jit.createJITDylib(name);
  if (!created) throw BackendError("LLVM: creating a JIT library failed: " + error_text(created.takeError()));
  llvm::orc::JITDylib& lib = *created;
  // libm and the process's other symbols resolve through LLJIT's process-symbols
  // library, which every library createJITDylib makes links to.
  check(jit.addObjectFile(lib, llvm::MemoryBuffer::getMemBufferCopy(object, name)), "adding object code");
  llvm::orc::ExecutorAddr addr = check(jit.lookup(lib, symbol), "looking up the kernel entry");
  return addr.toPtr<void*>();
}

namespace {

struct SharedJit {
  std::once_flag made;
  Jit* jit = nullptr;  // never destroyed: variants of devices alive at exit point into it
  std::mutex thread_mutex;
  std::thread warm_up;
  bool warm_up_started = false;

  void join() {
    std::lock_guard lock(thread_mutex);
    if (warm_up.joinable()) warm_up.join();
  }
  ~SharedJit() { join(); }
};

SharedJit& shared() {
  static SharedJit s;
  return s;
}

// A fork waits for the warm-up, so the child inherits a whole Jit (or none), never one half made.
void join_before_fork() { shared().join(); }

}  // namespace

Jit& shared_jit() {
  SharedJit& s = shared();
  // A failed construction leaves the flag unset: the next caller tries again and sees the error.
  std::call_once(s.made, [&] { s.jit = new Jit(); });
  return *s.jit;
}

void warm_up_shared_jit() {
  SharedJit& s = shared();
  std::lock_guard lock(s.thread_mutex);
  if (s.warm_up_started) return;
  s.warm_up_started = true;
  static std::once_flag atfork;
  std::call_once(atfork, [] { pthread_atfork(join_before_fork, nullptr, nullptr); });
  s.warm_up = std::thread([] {
    try {
      shared_jit();
    } catch (...) {  // the first real use raises it again, with its message
    }
  });
}

}  // namespace tack::runtime::cpu
