// Loads the object code the CPU compiler emits (relocatable ELF for x86-64,
// position-independent, small code model) into executable memory of its own,
// without LLVM. A cached variant then costs a file read and a few dozen
// relocations instead of an ORC session and a JIT library: LLJIT's creation
// alone was about 1 ms of a new process's first call (bench/RESULTS.md).
// Anything outside that shape is refused with a BackendError, and the Jit then
// loads the object through LLJIT instead, so the loader never has to be complete.
#pragma once

#include "support/no_copy.hpp"

#include <cstddef>
#include <memory>
#include <string_view>

namespace tack::backends::cpu {

class LoadedObject : support::NoCopy {
 public:
  // Whether this host's objects are ones the loader reads (x86-64 ELF).
  static bool host_supported();

  // Maps the object's allocated sections, applies its relocations (symbols it
  // does not define come from the process, e.g. libm) and returns the loaded
  // image with the address of `entry`, a symbol it defines. Throws BackendError
  // saying what was not understood: a malformed or foreign object, an unknown
  // relocation, a symbol the process lacks, a displacement out of range.
  static std::unique_ptr<LoadedObject> load(std::string_view object, std::string_view entry);

  ~LoadedObject();

  void* entry() const { return entry_; }
  std::size_t mapped_bytes() const { return bytes_; }

 private:
  LoadedObject() = default;
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  void* entry_ = nullptr;
};

}  // namespace tack::backends::cpu
