// The bodies of <tack/autodiff.hpp>: a kernel's derivative kernels, over runtime/kernels/derived_kernel.
#include "runtime/kernels/derived_kernel.hpp"
#include "runtime/memory/access.hpp"

#include <tack/autodiff.hpp>
#include <tack/error.hpp>

namespace tack {
namespace {
Kernel derived(const Kernel& k, ir::Derivative d) {
  const auto& impl = detail::Access::impl(k);
  if (!impl) throw InvalidArgument("tack::adjoint and tack::jvp take a kernel, got an empty tack::Kernel");
  auto made = runtime::derived_kernel(impl, d);
  const auto& groups = detail::Access::groups(k);
  if (!groups) return Kernel(std::move(made));
  // The primal's struct parameters as bundles, then each array leaf's gradient as one argument.
  std::vector<int> g = *groups;
  for (const auto& spec : impl->specs)
    if (spec.kind == ArgKind::Array) g.push_back(-1);
  return Kernel(std::move(made), std::move(g));
}
}  // namespace

Kernel adjoint(const Kernel& k) { return derived(k, ir::Derivative::Adjoint); }

Kernel jvp(const Kernel& k) { return derived(k, ir::Derivative::Tangent); }

}  // namespace tack
