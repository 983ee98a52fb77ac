// The front-end door (frontend.hpp) over the runtime's objects: each function
// is the untyped or run-time half of something the C++ API does with templates.
#include "api/frontend.hpp"

#include "ir/ir.hpp"
#include "ir/scalar_ops.hpp"
#include "lang/trace_context.hpp"
#include "runtime/devices/registry.hpp"
#include "runtime/kernels/fp_contract.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "runtime/kernels/signature.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/waits/async_wait.hpp"

#include <utility>

namespace tack::api {

static_assert(kMaxKernelParams == runtime::kMaxKernelParams, "frontend.hpp's kMaxKernelParams is the runtime's");

Array from_host(const Device& d, DType dtype, const void* data, std::size_t count, std::vector<std::int64_t> shape) {
  return detail::Access::from_host(d, dtype, data, count, std::move(shape));
}

void read(const Array& a, std::int64_t start, std::int64_t count, void* out) {
  detail::Access::read(a, a.dtype(), start, count, out);
}

void fill(Array& a, DType from, const void* value) { detail::Access::fill(a, from, value); }

void reduce(const Array& a, detail::ReduceOp op, DType as, void* out) { detail::Access::reduce(a, op, as, out); }

void after_queued(const Array& a, WhenDone then) { detail::Access::after_queued(a, std::move(then)); }

void after_queued(const Device& d, WhenDone then) {
  runtime::after_mark(runtime::take_mark({detail::Access::backend(d)}), std::move(then));
}

void after_all_queued(WhenDone then) {
  runtime::after_mark(runtime::take_mark(runtime::live_backends()), std::move(then));
}

const void* device_identity(const Device& d) { return detail::Access::backend(d).get(); }

Kernel make_kernel(KernelDefinition def) {
  auto impl = std::make_shared<runtime::KernelImpl>();
  impl->name = std::move(def.name);
  impl->specs = std::move(def.params);
  impl->param_names = std::move(def.param_names);
  impl->fp_contract = runtime::effective_fp_contract(def.fp_contract);  // as tack::kernel's KernelOptions
  impl->loc = {lang::detail::intern_file_name(def.file), def.line};
  impl->body = [trace = std::move(def.trace)] {
    // The front end sets the location of each statement it replays; this scope clears
    // it while the trace runs and restores what was there, however the trace ends.
    lang::detail::LocationOverride scope(nullptr, 0);
    trace();
  };
  return Kernel(std::move(impl));
}

KernelSignature signature(const Kernel& k) {
  const runtime::KernelImpl& impl = *detail::Access::impl(k);
  return {impl.name, impl.specs, impl.param_names};
}

const void* kernel_identity(const Kernel& k) { return detail::Access::impl(k).get(); }

std::weak_ptr<const void> watch(const Kernel& k) { return detail::Access::impl(k); }

void retrace(const Kernel& k) { detail::Access::impl(k)->retrace(); }

bool tracing() { return lang::detail::TraceContext::active() != nullptr; }

void set_location(const std::optional<std::string>& file, int line) {
  if (!file) return lang::detail::set_location_override(nullptr, 0);
  lang::detail::set_location_override(lang::detail::intern_file_name(*file), line);
}

lang::Value truth_value(const lang::Value& v) {
  const ir::ExprNode* e = v.expr().get();
  if (e->kind == ir::ExprKind::Op) {
    const ir::OpCategory c = ir::op_category(static_cast<const ir::Op*>(e)->op);
    if (c == ir::OpCategory::Compare || c == ir::OpCategory::Logic || c == ir::OpCategory::Classify) return v;
  }
  if (!e->type.is_unknown() && e->type.dtype == DType::Bool) return v;
  return v != lang::Value(0);
}

std::uint64_t cast_bits(DType from, DType to, std::uint64_t bits) { return ir::eval_cast(from, to, bits); }

}  // namespace tack::api
