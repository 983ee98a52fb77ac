// From a call's arguments to a compiled variant: argument checks, the signature,
// the in-memory cache, and on a miss specialization, optimization and compilation.
#pragma once

#include "passes/bounds_checks.hpp"
#include "passes/lower_prints.hpp"
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

// Specializes and optimizes the traced kernel for a signature (no compilation):
// the typing and optimizing parts of passes/pipeline.hpp.
// In debug mode (kSignatureDebug) every access is checked (passes::bounds_checks);
// the checks' sites go to *checks when given.
// `report`, when given, gets the milliseconds of inference and optimization.
// Prints are lowered (passes::lower_prints); their layout goes to *prints when given.
// `observed`: whether the specialize observer (below) sees the result.
ir::Kernel specialize(KernelImpl& k, const Backend& backend, const Signature& sig,
                      passes::BoundsChecked* checks = nullptr, CompileReport* report = nullptr,
                      passes::PrintLayout* prints = nullptr, bool observed = true);

// Refuses, with TypeError or InvalidArgument, a typed kernel that uses what the
// backend lacks: workgroups, shared arrays or atomics of an unsupported dtype.
void check_capabilities(const ir::Kernel& typed, const Capabilities& caps);

// A hook for tests: called with every kernel specialize() returns (the compile
// checks collect the conformance suite's kernels through it). Empty to remove.
void set_specialize_observer(std::function<void(const ir::Kernel&)> observer);

// The compiled variant for this call, from the backend's cache or built now.
std::shared_ptr<const CompiledVariant> resolve_variant(KernelImpl& k, Backend& backend, const Signature& sig);

}  // namespace tack::runtime
