// Tracing a kernel function into IR, once.
#include "runtime/kernels/kernel_impl.hpp"

#include "analysis/private_adds.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "lang/trace.hpp"
#include "runtime/kernels/compile_report.hpp"
#include "runtime/kernels/signature.hpp"

#include <tack/error.hpp>

#include <chrono>
#include <utility>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tack::runtime {

ir::Kernel KernelImpl::make_ir() {
  if (primal) {
    // The primal's IR (traced now if it was not), its array parameters doubled by their gradients.
    const ir::Kernel& of = primal->traced();
    primal_ir_ = &of;
    ir::Kernel k = of;
    k.name = name;
    const std::size_t n = k.params.size();
    for (std::size_t p = 0; p < n; ++p)
      if (k.params[p].kind == ir::ParamKind::Array) {
        ir::Param g = k.params[p];
        g.gradient_of = static_cast<int>(p);
        k.params.push_back(g);
      }
    if (k.params.size() > static_cast<std::size_t>(kMaxKernelParams))
      throw InvalidArgument("kernel '" + name + "' has " + std::to_string(k.params.size()) + " parameters; at most " +
                            std::to_string(kMaxKernelParams) + " are supported");
    k.derivative = derivative;
    return k;
  }
  if (specs.size() > static_cast<std::size_t>(kMaxKernelParams))
    throw InvalidArgument("kernel '" + name + "' has " + std::to_string(specs.size()) + " parameters; at most " +
                          std::to_string(kMaxKernelParams) + " are supported");
  ir::Kernel k;
  k.name = name;
  k.loc = loc;
  k.fp_contract = fp_contract;
  for (const auto& s : specs) {
    ir::Param p;
    p.kind = s.kind;
    if (s.fixed) p.fixed_dtype = s.dtype;
    k.params.push_back(p);
  }
  if (!lang::detail::trace(k, body))
    throw InvalidArgument("kernel '" + name + "' (" + loc.str() +
                          ") has no parallel_for or workgroup_for: a kernel is one parallel loop");
  return k;
}

const ir::Kernel& KernelImpl::traced() {
  std::lock_guard lock(trace_mutex_);
  if (traced_ && primal && &primal->traced() != primal_ir_) {
    // The primal was traced again (a Python kernel whose globals changed): so is its derivative.
    retired_.push_back(std::move(kernel_));
    traced_ = false;
  }
  if (traced_) return *kernel_;
  const auto start = std::chrono::steady_clock::now();
  ir::Kernel k = make_ir();
  std::string text = ir::to_key_text(k);
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  hash_lo_ = h.low64;
  hash_hi_ = h.high64;
  traced_text_ = std::move(text);
  std::string lines = k.loc.str();
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) { lines += ";" + s->loc.str(); });
  locations_hash_ = XXH3_64bits(lines.data(), lines.size());
  add_only_params_ = analysis::add_only_params(k);
  kernel_ = std::make_unique<ir::Kernel>(std::move(k));
  traced_ = true;
  trace_ms_ = ms_since(start);
  return *kernel_;
}

void KernelImpl::retrace() {
  std::lock_guard lock(trace_mutex_);
  if (!traced_) return;
  retired_.push_back(std::move(kernel_));
  traced_ = false;
}

double KernelImpl::take_trace_ms() {
  std::lock_guard lock(trace_mutex_);
  return std::exchange(trace_ms_, 0.0);
}

}  // namespace tack::runtime
