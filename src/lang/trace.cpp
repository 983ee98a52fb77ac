// A whole trace: the body under its context, then the canonical order.
#include "lang/trace.hpp"

#include "lang/canonical_order.hpp"
#include "lang/trace_context.hpp"

namespace tack::lang::detail {

bool trace(ir::Kernel& k, const std::function<void()>& body) {
  bool launch_seen = false;
  {
    TraceContext ctx(k);
    body();
    launch_seen = ctx.launch_seen();
  }
  if (!launch_seen) return false;
  // Before the caller hashes it: the IR must not depend on the order the front end evaluated operands in.
  canonicalize_order(k);
  return true;
}

}  // namespace tack::lang::detail
