// The CPU backend's Jit without LLVM: the cache key's target, object loading
// (LoadedObject, or LLJIT through the plugin), and the compiler, which lives in
// libtack_llvm.so and is loaded at the first compile (compiler.hpp).
#include "backends/cpu/jit.hpp"

#include "backends/cpu/compiler.hpp"
#include "backends/cpu/host_cpu_id.hpp"
#include "backends/cpu/object_loader.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <atomic>
#include <mutex>

#ifndef TACK_LLVM_VERSION
#error "TACK_LLVM_VERSION (LLVM's version, for the cache key) is defined by the build"
#endif

namespace tack::backends::cpu {
namespace {

std::atomic<std::uint64_t> g_compiles{0};
std::atomic<std::uint64_t> g_lljit_loads{0};

}  // namespace

std::uint64_t Jit::compile_count() { return g_compiles.load(); }
std::uint64_t Jit::lljit_load_count() { return g_lljit_loads.load(); }

Jit::Jit() {
  // The compiler's LLVM and the host CPU: the plugin is built with the LLVM
  // whose version this library records.
  std::string target = host_cpu_id();
  target = target.empty() ? llvm_compiler().host_target() : std::string(TACK_LLVM_HOST_TRIPLE) + "|" + target;
  target_id_ = std::string("llvm ") + TACK_LLVM_VERSION + "|" + target;
}

Jit::~Jit() = default;

std::string Jit::compile(const ir::Kernel& typed, const CodegenOptions& options, std::string* chunk_symbol,
                         double* codegen_ms, double* compile_ms) {
  g_compiles.fetch_add(1);
  uses_.fetch_add(1);
  return llvm_compiler().compile(typed, options, chunk_symbol, codegen_ms, compile_ms);
}

std::string Jit::ir_text(const ir::Kernel& typed, const CodegenOptions& options) {
  return llvm_compiler().ir_text(typed, options);
}

Jit::Loaded Jit::load(const std::string& object, const std::string& symbol) {
  uses_.fetch_add(1);
  // TACK_CPU_OBJECT_LOADER=0 takes LLJIT's path, which hosts the loader does not serve always take, so
  // that this machine tests it too.
  if (LoadedObject::host_supported() && support::env_flag("TACK_CPU_OBJECT_LOADER")) {
    try {
      std::shared_ptr<LoadedObject> image = LoadedObject::load(object, symbol);
      return Loaded{image->entry(), std::move(image)};
    } catch (const BackendError&) {
      // Something this loader does not read: LLJIT reads every object LLVM writes.
    }
  }
  return load_with_lljit(object, symbol);
}

Jit::Loaded Jit::load_with_lljit(const std::string& object, const std::string& symbol) {
  g_lljit_loads.fetch_add(1);
  return Loaded{llvm_compiler().load_with_lljit(object, symbol), nullptr};
}

Jit& shared_jit() {
  static std::once_flag made;
  static Jit* jit = nullptr;  // never destroyed: variants of devices alive at exit point into it
  // A failed construction leaves the flag unset: the next caller tries again and sees the error.
  std::call_once(made, [&] { jit = new Jit(); });
  return *jit;
}

}  // namespace tack::backends::cpu
