// The bodies of <tack/kernel.hpp>: tack::kernel's making of a kernel,
// Kernel::launch, precompile_args, name and ir, tack::inspect and the debug
// mode. Each checks what the user handed it and passes the kernel on to the
// runtime (src/runtime/kernels/).
#include "api/recording.hpp"
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

Kernel::Kernel(std::shared_ptr<runtime::KernelImpl> impl, std::vector<int> param_groups)
    : impl_(std::move(impl)), groups_(std::make_shared<const std::vector<int>>(std::move(param_groups))) {}

namespace {
const char* kind_words(ArgKind k) {
  switch (k) {
    case ArgKind::Array: return "an array";
    case ArgKind::Scalar: return "a scalar";
    case ArgKind::Texture: return "a texture";
  }
  return "an argument";
}
std::string nth(std::size_t k) { return std::to_string(k + 1); }
}  // namespace

// A kernel's arguments where struct parameters take tack::bundle(...): each bundle must have
// its struct's field count, and each field the kind its struct declares.
void Kernel::check_bundles(std::span<const KernelArg> flat, std::span<const int> given) const {
  if (!impl_) throw InvalidArgument("calling an empty tack::Kernel (default-constructed)");
  const std::string who = "kernel '" + impl_->name + "'";
  std::vector<int> declared = groups_ ? *groups_ : std::vector<int>(impl_->specs.size(), -1);
  if (given.size() != declared.size())
    throw InvalidArgument(who + " takes " + std::to_string(declared.size()) + " arguments (a struct parameter is one "
                          "tack::bundle), got " + std::to_string(given.size()));
  std::size_t leaf = 0;
  for (std::size_t k = 0; k < declared.size(); ++k) {
    const std::string param = who + ", parameter " + nth(k);
    if (declared[k] < 0 && given[k] >= 0)
      throw InvalidArgument(param + " is one array or scalar, not a struct: pass it alone, not in a tack::bundle");
    if (declared[k] >= 0 && given[k] < 0)
      throw InvalidArgument(param + " is a struct of " + std::to_string(declared[k]) +
                            " fields: pass tack::bundle(...) with its fields in order");
    if (declared[k] >= 0 && given[k] != declared[k])
      throw InvalidArgument(param + " is a struct of " + std::to_string(declared[k]) + " fields; the tack::bundle has " +
                            std::to_string(given[k]));
    const std::size_t fields = declared[k] < 0 ? 1 : static_cast<std::size_t>(declared[k]);
    for (std::size_t j = 0; j < fields; ++j, ++leaf) {
      const detail::ParamSpec& spec = impl_->specs[leaf];
      if (declared[k] >= 0 && flat[leaf].kind != spec.kind)
        throw TypeError(param + ", field " + nth(j) + ": the struct declares " + kind_words(spec.kind) +
                        ", the tack::bundle gives " + kind_words(flat[leaf].kind));
    }
  }
}

void Kernel::launch(std::span<const KernelArg> args) const {
  if (!impl_) throw InvalidArgument("calling an empty tack::Kernel (default-constructed)");
  if (detail::recording()) return detail::launch_recorded(impl_, args);
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
