// tack::inspect's body: the IR and generated code of a kernel for given
// arguments on any backend, without running anything.
#include "runtime/kernels/inspect.hpp"

#include "ir/printer.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/devices/registry.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/devices/source_targets.hpp"

#include <tack/error.hpp>
#include <tack/device.hpp>

#include <algorithm>

namespace tack::runtime {
namespace {

// The backend to specialize for: its device where one can be made, else the
// code generator alone, so that any backend's source can be read on any machine.
std::shared_ptr<Backend> inspect_backend(std::string_view name) {
  const BackendDescription* target = find_source_target(name);
  const bool has_runtime = find_built_backend(name) != nullptr;
  if (!target && !has_runtime && !name.empty()) {
    std::vector<std::string> names = backend_names();
    for (const BackendDescription* t : source_targets())
      if (std::find(names.begin(), names.end(), t->name) == names.end()) names.push_back(t->name);
    throw InvalidArgument("tack::inspect: unknown backend '" + std::string(name) + "'" +
                          did_you_mean(name, names) + "; the backends are: " + join_names(names));
  }
  if (!target || name.empty()) return detail::Access::backend(device(name));
  if (!has_runtime) return source_only_backend(*target, "this build has no runtime for it");
  try {
    return detail::Access::backend(device(name));
  } catch (const BackendUnavailable& e) {
    return source_only_backend(*target, e.what());
  }
}

}  // namespace

Inspection inspect(KernelImpl& impl, std::string_view backend_name, std::span<const KernelArg> args) {
  std::shared_ptr<Backend> backend = inspect_backend(backend_name);
  ResolvedCall call = check_call(impl, args, backend, true);
  Inspection out;
  out.ir = ir::to_string_named(impl.traced());
  // The compile path of a call (resolve_variant) up to the source: the pipeline with the backend's recipe, then
  // its emitter.
  passes::Specialized specialized = specialize(impl, *backend, call.signature, backend->recipe().lowering);
  out.typed_ir = ir::to_string_named(specialized.kernel);
  out.source = generated_source(*backend, specialized.lowered);
  return out;
}

}  // namespace tack::runtime
