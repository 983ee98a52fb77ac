// The device's capabilities as a step of the pipeline: what the backend cannot
// run is refused on the typed kernel (hidden parameters and all), before
// optimizing and generating code. A check that reads the device's Capabilities
// as data, like check_barriers reads the IR: the passes still know no backend.
#pragma once

#include "ir/ir.hpp"

#include <tack/device.hpp>

namespace tack::passes {

// Refuses, with TypeError or InvalidArgument, a typed kernel that uses what the
// backend lacks: workgroups, shared arrays or atomics of an unsupported dtype.
void check_capabilities(const ir::Kernel& typed, const Capabilities& caps);

}  // namespace tack::passes
