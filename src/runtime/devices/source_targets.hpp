// Every backend whose code can be made without its device (its recipe has an
// emitter): what tack::inspect shows for a backend whose driver or hardware is
// absent, and what the compile checks feed to NVRTC, hipRTC, ocloc and clang.
// A target is a backend description, so a kernel a backend would refuse at the
// call is refused here the same way, and textures take the path the device
// takes.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/devices/backend_description.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

// The descriptions whose recipe has an emitter (the C-family backends and interp), in name order.
const std::vector<const BackendDescription*>& source_targets();
// The target named `name`, or nullptr when there is none (cpu, unknown names).
const BackendDescription* find_source_target(std::string_view name);

// A stand-in backend with the description's capabilities that can specialize
// (and, through its recipe, generate source) but holds no device: allocation,
// compilation and launch throw BackendUnavailable naming `reason`.
std::shared_ptr<Backend> source_only_backend(const BackendDescription& target, std::string reason);

}  // namespace tack::runtime
