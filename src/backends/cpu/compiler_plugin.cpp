// Finds and loads libtack_llvm.so: beside the libtack that holds this code (the
// build tree, an install's lib/, the Python package's folder), so no search
// path has to be set. Loaded once per process, on the first compile.
#include "backends/cpu/compiler.hpp"
#include "support/loaded_file.hpp"

#include <tack/error.hpp>

#include <dlfcn.h>
#include <sys/stat.h>

#include <mutex>
#include <string>

#ifndef TACK_LLVM_PLUGIN_NAME
#error "TACK_LLVM_PLUGIN_NAME (the compiler plugin's file name) is defined by the build"
#endif

namespace tack::backends::cpu {
namespace {

std::string plugin_path() {
  const std::string self = support::loaded_file_of(reinterpret_cast<const void*>(&llvm_compiler));
  if (self.empty()) return TACK_LLVM_PLUGIN_NAME;  // the loader's own search path
  const std::size_t slash = self.find_last_of('/');
  return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + TACK_LLVM_PLUGIN_NAME;
}

}  // namespace

Compiler* load_compiler_plugin(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw BackendUnavailable("cpu: the compiler (LLVM) could not be loaded from " + path + ": " +
                             (why ? why : "unknown error") + " (it is installed beside libtack)");
  }
  auto* make = reinterpret_cast<decltype(&tack_make_llvm_compiler)>(dlsym(handle, "tack_make_llvm_compiler"));
  if (!make) throw BackendUnavailable("cpu: " + path + " is not Tack's compiler plugin (no tack_make_llvm_compiler)");
  Compiler* compiler = make(Compiler::kInterfaceVersion);
  if (!compiler)
    throw BackendUnavailable("cpu: " + path + " is the compiler plugin of another Tack version (interface " +
                             std::to_string(Compiler::kInterfaceVersion) + " expected)");
  return compiler;  // the handle stays open: the compiler lives as long as the process
}

const std::string& compiler_plugin_identity() {
  static const std::string identity = [] {
    const std::string path = plugin_path();
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return "no plugin at " + path;
    return path + " " + std::to_string(st.st_size) + " bytes, modified " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }();
  return identity;
}

Compiler& llvm_compiler() {
  static std::once_flag once;
  static Compiler* compiler = nullptr;
  // A failed load leaves the flag unset: the next use tries again and raises again.
  std::call_once(once, [] { compiler = load_compiler_plugin(plugin_path()); });
  return *compiler;
}

}  // namespace tack::backends::cpu
