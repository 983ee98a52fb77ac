// Tracing a kernel's body into IR, whole: the one entry the runtime calls
// (KernelImpl::traced), so that a trace is one step of a call's path.
#pragma once

#include "ir/ir.hpp"

#include <functional>

namespace tack::lang::detail {

// Runs `body` under a TraceContext over `k` (whose name, location and
// parameters are set), then puts the reads in canonical order
// (canonical_order.hpp). Returns whether the body opened its parallel loop
// (parallel_for or workgroup_for); the caller refuses a kernel without one.
bool trace(ir::Kernel& k, const std::function<void()>& body);

}  // namespace tack::lang::detail
