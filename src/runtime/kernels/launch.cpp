// One call of a kernel (Kernel::launch's body): check and bind the arguments,
// find the variant, size the launch from the arguments, and hand it to the backend.
#include "runtime/kernels/launch.hpp"

#include "interp/eval_host.hpp"
#include "ir/printer.hpp"
#include "ir/scalar_ops.hpp"
#include "runtime/kernels/own_lines.hpp"
#include "runtime/kernels/print_capture.hpp"
#include "runtime/kernels/resolve_variant.hpp"

#include <tack/error.hpp>

#include <algorithm>

namespace tack::runtime {
namespace {

// Launch ranges are expressions of the scalars and array shapes. The common
// forms (a size, an extent, a scalar, a cast of one, a constant) are read
// directly; anything else goes to the interpreter's evaluator, which has the
// kernel's exact semantics.
std::int64_t extent_of(const ir::Expr& e, const ResolvedCall& call) {
  if (auto d = e.as<ir::ArrayDim>()) {
    const ArrayStorage* a = call.args[static_cast<std::size_t>(d->param)].array;
    return d->dim == ir::ArrayDim::kSize ? a->size : a->shape[static_cast<std::size_t>(d->dim)];
  }
  if (auto c = e.as<ir::Const>()) return c->i;
  if (auto c = e.as<ir::Cast>(); c && is_integer(c->value->type.dtype)) {
    if (auto p = c->value.as<ir::ScalarParam>())
      return static_cast<std::int64_t>(
          ir::eval_cast(p->type.dtype, DType::I64, call.args[static_cast<std::size_t>(p->param)].scalar));
  }
  if (auto p = e.as<ir::ScalarParam>())
    return static_cast<std::int64_t>(call.args[static_cast<std::size_t>(p->param)].scalar);
  interp::HostInputs in;
  in.scalar = [&](int p) { return call.args[static_cast<std::size_t>(p)].scalar; };
  in.extent = [&](int p, int dim) {
    const ArrayStorage* a = call.args[static_cast<std::size_t>(p)].array;
    return dim == ir::ArrayDim::kSize ? a->size : a->shape[static_cast<std::size_t>(dim)];
  };
  return static_cast<std::int64_t>(interp::eval_host(e, in));
}

// Debug mode: the launch gets a zeroed error array as its last argument and waits;
// a recorded access becomes the IndexError the interpreter would raise.
void launch_checked(Launch l, ResolvedCall& call, const CompiledVariant& v,
                    PrintCapture& prints) {
  const ir::Kernel& typed = v.typed;
  if (call.count >= static_cast<std::size_t>(kMaxKernelParams))
    throw InvalidArgument("kernel '" + typed.name + "': debug mode needs one more argument slot than the " +
                          std::to_string(kMaxKernelParams) + " a kernel may have; pass fewer arguments");
  ArrayStorage errors;
  errors.backend = call.backend;
  errors.buffer = call.backend->allocate(3 * sizeof(std::int32_t), true);
  errors.dtype = DType::I32;
  errors.shape = {3};
  errors.size = 3;
  BoundArg& extra = call.args[call.count];
  extra.kind = ir::ParamKind::Array;
  extra.array = &errors;
  l.args = call.args.data();
  l.arg_count = std::max(call.count + 1, prints.arg_count());  // the print arrays follow the error array
  call.backend->launch(l);
  std::int32_t record[3] = {};
  errors.buffer->read(0, record, sizeof record);  // waits for the launch
  // This launch has waited: its lines, and those of earlier launches, come out before its error.
  if (prints.active()) defer_prints(std::move(prints));
  flush_prints();
  if (record[0] == 0) return;
  const abi::CheckedAccess& site = v.debug_sites.at(static_cast<std::size_t>(record[0] - 1));
  const std::int64_t index =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::uint32_t>(record[1])) |
                                (static_cast<std::uint64_t>(static_cast<std::uint32_t>(record[2])) << 32));
  const auto space = site.array.space;
  const auto at = static_cast<std::size_t>(site.array.index);
  const std::int64_t extent = space == ir::ArrayRef::Space::Shared  ? typed.shared[at].count
                              : space == ir::ArrayRef::Space::Local ? typed.locals[at].count
                                                                    : call.args[at].array->size;
  const char* what = space == ir::ArrayRef::Space::Shared  ? "shared array "
                     : space == ir::ArrayRef::Space::Local ? "local array "
                                                           : "argument ";
  std::string msg = "kernel '" + typed.name + "': index " + std::to_string(index) + " is out of range for " + what +
                    std::to_string(site.array.index) + " (extent " + std::to_string(extent) + ")";
  std::string where = site.loc.str();
  if (!where.empty()) msg += " at " + where;
  throw IndexError(msg + " (debug mode: the access was skipped)");
}

// Whether the launch binds memory handed outside Tack, whose other side may read it with no Tack call between.
bool binds_shared(const ResolvedCall& call) {
  for (std::size_t i = 0; i < call.count; ++i)
    if (const ArrayStorage* a = call.args[i].array; a && a->buffer->shared()) return true;
  return false;
}

}  // namespace

void launch(KernelImpl& impl, std::span<const KernelArg> args) {
  ResolvedCall call = check_call(impl, args, nullptr, false);
  auto variant = resolve_variant(impl, *call.backend, call.signature);
  const ir::Kernel& typed = variant->typed;

  std::int64_t count = 1, outer = 0;
  for (size_t d = 0; d < typed.dims.size(); ++d) {
    std::int64_t extent = extent_of(typed.dims[d], call);
    if (d == 0) outer = extent;
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
  Launch l;
  l.variant = variant.get();
  l.args = call.args.data();
  l.arg_count = call.count;
  l.count = count;
  if (typed.launch == ir::LaunchKind::Parallel) l.outer = outer;
  PrintCapture prints(variant, call);  // binds the print arrays, if the kernel prints
  try {
    if (variant->debug_error_param >= 0) return launch_checked(l, call, *variant, prints);
    l.arg_count = prints.arg_count();
    call.backend->launch(l);
    if (prints.active()) defer_prints(std::move(prints));  // its lines come out at the next wait
    if (binds_shared(call)) {
      flush_prints();
      call.backend->synchronize();
    }
  } catch (const Error&) {
    // The variant may be a twin kernel's (same IR, other lines): name this kernel's lines.
    if (variant->locations_hash != impl.locations_hash())
      rethrow_with_own_lines(impl, *call.backend, call.signature, *variant);
    throw;
  }
}

}  // namespace tack::runtime
