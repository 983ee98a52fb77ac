// Kernel::launch: check and bind the arguments, find the variant, size the
// launch from the arguments, and hand it to the backend.
#include "interp/interpreter.hpp"
#include "ir/printer.hpp"
#include "runtime/resolve_variant.hpp"

#include <tack/error.hpp>
#include <tack/kernel.hpp>

namespace tack {
namespace {

// Launch ranges are expressions of the scalars and array shapes; the
// interpreter's evaluator computes them on the host with the kernel's semantics.
std::vector<interp::Arg> range_args(const std::vector<runtime::BoundArg>& args) {
  std::vector<interp::Arg> out(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    out[i].kind = args[i].kind;
    out[i].scalar = args[i].scalar;
    if (const runtime::ArrayStorage* a = args[i].array) {
      out[i].array.dtype = a->dtype;
      out[i].array.size = a->size;
      out[i].array.rank = static_cast<int>(a->shape.size());
      for (size_t d = 0; d < a->shape.size(); ++d) out[i].array.shape[d] = a->shape[d];
    }
  }
  return out;
}

}  // namespace

void Kernel::launch(std::span<const KernelArg> args) const {
  if (!impl_) throw InvalidArgument("calling an empty tack::Kernel (default-constructed)");
  runtime::ResolvedCall call = runtime::check_call(*impl_, args, nullptr, false);
  auto variant = runtime::resolve_variant(*impl_, *call.backend, call.signature);
  const ir::Kernel& typed = variant->typed;

  std::vector<interp::Arg> host_args = range_args(call.args);
  std::int64_t count = 1;
  for (size_t d = 0; d < typed.dims.size(); ++d) {
    auto extent = static_cast<std::int64_t>(interp::eval_host(typed.dims[d], host_args));
    if (extent < 0)
      throw InvalidArgument("kernel '" + typed.name + "': the " +
                            (typed.launch == ir::LaunchKind::Workgroup ? std::string("number of groups")
                                                                       : "range of dimension " + std::to_string(d)) +
                            " is negative (" + std::to_string(extent) + ")");
    if (extent != 0 && count > INT64_MAX / extent)
      throw InvalidArgument("kernel '" + typed.name + "': the launch range overflows 64 bits");
    count *= extent;
  }
  if (count == 0) return;  // an empty range launches nothing
  call.backend->check_launch_size(typed, count);
  runtime::Launch l;
  l.variant = variant.get();
  l.args = call.args.data();
  l.arg_count = call.args.size();
  l.count = count;
  call.backend->launch(l);
}

const std::string& Kernel::name() const {
  static const std::string empty;
  return impl_ ? impl_->name : empty;
}

std::string Kernel::ir() const {
  if (!impl_) throw InvalidArgument("tack::Kernel::ir() on an empty kernel");
  return ir::to_string(impl_->traced());
}

}  // namespace tack
