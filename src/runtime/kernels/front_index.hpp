// The disk cache's front index (docs/caching.md, "The front index"): a variant
// found by what is known before typing (the traced IR's text, the call's
// signature and the backend's own key fields), so that a new process whose
// kernels are cached pays for tracing and loading them, not for type inference
// and the optimizer, which cost a real kernel more than loading its code.
//
// An entry holds what the launch reads of the typed kernel (its kind and its
// range) and the backend's part (CompiledVariant::front_entry: for the CPU,
// the object code and what its launch needs). Variants whose launch reads more
// get none: debug mode's checked sites, a kernel that prints.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/kernels/kernel_impl.hpp"

#include <memory>
#include <string>

namespace tack::runtime {

class FrontIndex {
 public:
  // The key of this call's entry. None (load finds nothing, store writes nothing) where the disk cache is off, the
  // backend keeps no front entries, the call is in debug mode, or `skip` (the pipeline must run: TACK_DUMP_IR asks
  // to see it, a specialize observer watches it).
  FrontIndex(KernelImpl& impl, Backend& backend, const Signature& sig, bool skip);

  // The variant of the entry (restored, with disk and load filled in its report), or nullptr.
  std::unique_ptr<CompiledVariant> load() const;

  // Writes the entry of a variant just compiled for this call, where its launch can be described, and clears its
  // front_entry.
  void store(CompiledVariant& v) const;

 private:
  const ir::Kernel& traced_;
  Backend& backend_;
  const Signature& sig_;
  std::string key_;  // the key's text; empty: none
};

}  // namespace tack::runtime
