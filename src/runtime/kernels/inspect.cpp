// tack::inspect: the IR and generated code of a kernel for given arguments on
// any backend, without running anything.
#include "ir/printer.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/devices/registry.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/devices/source_targets.hpp"

#include <tack/error.hpp>
#include <tack/kernel.hpp>

#include <algorithm>

namespace tack {
namespace {

// The backend to specialize for: its device where one can be made, else the
// code generator alone, so that any backend's source can be read on any machine.
std::shared_ptr<runtime::Backend> inspect_backend(std::string_view name) {
  const runtime::BackendDescription* target = runtime::find_source_target(name);
  const bool has_runtime = runtime::find_built_backend(name) != nullptr;
  if (!target && !has_runtime && !name.empty()) {
    std::vector<std::string> names = backend_names();
    for (const runtime::BackendDescription* t : runtime::source_targets())
      if (std::find(names.begin(), names.end(), t->name) == names.end()) names.push_back(t->name);
    throw InvalidArgument("tack::inspect: unknown backend '" + std::string(name) + "'" +
                          runtime::did_you_mean(name, names) + "; the backends are: " + runtime::join_names(names));
  }
  if (!target || name.empty()) return detail::Access::backend(device(name));
  if (!has_runtime) return runtime::source_only_backend(*target, "this build has no runtime for it");
  try {
    return detail::Access::backend(device(name));
  } catch (const BackendUnavailable& e) {
    return runtime::source_only_backend(*target, e.what());
  }
}

}  // namespace

Inspection inspect_args(const Kernel& k, std::string_view backend_name, std::span<const KernelArg> args) {
  if (!detail::Access::impl(k)) throw InvalidArgument("tack::inspect of an empty tack::Kernel");
  std::shared_ptr<runtime::Backend> backend = inspect_backend(backend_name);
  runtime::ResolvedCall call = runtime::check_call(*detail::Access::impl(k), args, backend, true);
  Inspection out;
  out.ir = ir::to_string(detail::Access::impl(k)->traced());
  // The compile path of a call (resolve_variant) up to the source: the pipeline with the backend's recipe, then
  // its emitter.
  passes::Specialized specialized =
      runtime::specialize(*detail::Access::impl(k), *backend, call.signature, backend->recipe().lowering);
  out.typed_ir = ir::to_string(specialized.kernel);
  out.source = runtime::generated_source(*backend, specialized.lowered);
  return out;
}

}  // namespace tack
