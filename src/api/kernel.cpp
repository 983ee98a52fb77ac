// The bodies of <tack/kernel.hpp>: tack::kernel's making of a kernel,
// Kernel::launch, precompile_args, name and ir, tack::inspect and the debug
// mode. Each checks what the user handed it and passes the kernel on to the
// runtime (src/runtime/kernels/).
#include "ir/printer.hpp"
#include "lang/trace_context.hpp"
#include "runtime/kernels/fp_contract.hpp"
#include "runtime/kernels/inspect.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "runtime/kernels/launch.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/precompile.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>
#include <tack/kernel.hpp>

#include <atomic>

namespace tack {

namespace detail {
std::shared_ptr<runtime::KernelImpl> make_kernel(std::string name, std::vector<ParamSpec> params,
                                                 std::function<void()> body, std::source_location loc,
                                                 const KernelOptions& options) {
  auto k = std::make_shared<runtime::KernelImpl>();
  if (name.empty()) throw InvalidArgument("a kernel needs a name (tack::kernel(\"name\", fn))");
  k->name = std::move(name);
  k->specs = std::move(params);
  k->body = std::move(body);
  k->loc = lang::detail::to_loc(loc);
  k->fp_contract = runtime::effective_fp_contract(options.fp_contract);
  return k;
}
}  // namespace detail

void Kernel::launch(std::span<const KernelArg> args) const {
  if (!impl_) throw InvalidArgument("calling an empty tack::Kernel (default-constructed)");
  runtime::launch(*impl_, args);
}

void Kernel::precompile_args(const Device& device, std::span<const KernelArg> args) const {
  if (!impl_) throw InvalidArgument("precompile of an empty tack::Kernel (default-constructed)");
  runtime::precompile_call(*impl_, runtime::precompile_backend(device), args);
}

const std::string& Kernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->name : empty;
}

std::string Kernel::ir() const {
  if (!impl_) throw InvalidArgument("tack::Kernel::ir() on an empty kernel");
  return ir::to_string(impl_->traced());
}

Inspection inspect_args(const Kernel& k, std::string_view backend_name, std::span<const KernelArg> args) {
  if (!detail::Access::impl(k)) throw InvalidArgument("tack::inspect of an empty tack::Kernel");
  return runtime::inspect(*detail::Access::impl(k), backend_name, args);
}

namespace {
// Part of every variant key (runtime::check_call reads it per call).
std::atomic<bool>& debug_flag() {
  static std::atomic<bool> flag{support::env_flag("TACK_DEBUG")};
  return flag;
}
}  // namespace

bool debug() { return debug_flag().load(std::memory_order_relaxed); }
void set_debug(bool on) { debug_flag().store(on, std::memory_order_relaxed); }

}  // namespace tack
