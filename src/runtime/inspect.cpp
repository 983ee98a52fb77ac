// tack::inspect: the IR and generated code of a kernel for given arguments on
// any backend, without running anything.
#include "ir/printer.hpp"
#include "runtime/registry.hpp"
#include "runtime/resolve_variant.hpp"

#include <tack/error.hpp>
#include <tack/kernel.hpp>

namespace tack {

Inspection inspect_args(const Kernel& k, std::string_view backend_name, std::span<const KernelArg> args) {
  if (!k.impl()) throw InvalidArgument("tack::inspect of an empty tack::Kernel");
  std::shared_ptr<runtime::Backend> backend = device(backend_name).backend();
  runtime::ResolvedCall call = runtime::check_call(*k.impl(), args, backend, true);
  Inspection out;
  out.ir = ir::to_string(k.impl()->traced());
  ir::Kernel typed = runtime::specialize(*k.impl(), *backend, call.signature);
  out.typed_ir = ir::to_string(typed);
  out.source = backend->source(typed);
  return out;
}

}  // namespace tack
