// Every backend's code generator, usable without its device: what
// tack::inspect shows for a backend whose driver or hardware is absent, and what
// the compile checks feed to NVRTC, hipRTC, ocloc and clang. Each target carries
// the reference's capability table, so a kernel a backend would refuse at the
// call is refused here the same way.
#pragma once

#include "ir/ir.hpp"
#include "runtime/backend.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

struct SourceTarget {
  std::string name;   // the backend's name: "cuda", "hip", "level_zero", "metal", "opencl"
  Capabilities caps;  // as the reference's table states them for a device with every optional feature
  // Typed, optimized IR to the source the backend compiles (after pack_scalars).
  std::string (*generate)(const ir::Kernel& typed);
};

// The C-family targets, in a fixed order.
const std::vector<SourceTarget>& source_targets();
const SourceTarget* find_source_target(std::string_view name);

// A stand-in backend with the target's capabilities that can specialize and
// generate source but holds no device: allocation, compilation and launch
// throw BackendUnavailable naming `reason`.
std::shared_ptr<Backend> source_only_backend(const SourceTarget& target, std::string reason);

}  // namespace tack::runtime
