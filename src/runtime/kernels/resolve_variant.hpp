// From a call's arguments to a compiled variant: argument checks, the signature,
// the in-memory cache, and on a miss the one compile path every backend takes:
// the pipeline (passes/pipeline.hpp) ended by the lowering of the backend's
// recipe, then the backend's compile with the row's emitter as its source.
#pragma once

#include "passes/pipeline.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/kernels/kernel_impl.hpp"

#include <tack/kernel.hpp>

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace tack::runtime {

// Fixed-size so that a warm dispatch allocates nothing.
struct ResolvedCall {
  std::shared_ptr<Backend> backend;
  std::array<BoundArg, kMaxKernelParams> args{};  // the first `count` are the parameters
  std::size_t count = 0;
  Signature signature;
};

// Checks count, kinds, fixed dtypes, devices and backend dtype support, and binds
// the arguments. `backend` may be null: then the arrays' device, else the default.
// `for_inspect` accepts ArraySpec arguments (nothing is bound for them).
ResolvedCall check_call(KernelImpl& k, std::span<const KernelArg> args, std::shared_ptr<Backend> backend,
                        bool for_inspect);

// The traced kernel through the compile pipeline (passes/pipeline.hpp) for a
// signature on a backend, ended by the lowering `lowering` (the backend's
// recipe's; own_lines, which compares typed IR only, asks for none); no
// compilation. The backend's Capabilities are checked as a step of it. In
// debug mode (kSignatureDebug) every access is checked (passes::bounds_checks);
// prints are lowered (passes::lower_prints); the result holds both's sites.
// `observed`: whether the specialize observer (below) sees the optimized kernel.
passes::Specialized specialize(KernelImpl& k, const Backend& backend, const Signature& sig,
                               passes::BackendLowering lowering, bool observed = true);

// A hook for tests: called with every optimized kernel specialize() makes (the compile
// checks collect the conformance suite's kernels through it). Empty to remove.
void set_specialize_observer(std::function<void(const ir::Kernel&)> observer);

// The compiled variant for this call, from the backend's cache or built now.
std::shared_ptr<const CompiledVariant> resolve_variant(KernelImpl& k, Backend& backend, const Signature& sig);

}  // namespace tack::runtime
