// A dispatch through a launch call of CUDA's shape (cuLaunchKernel, and HIP's
// hipModuleLaunchKernel, which copies it): every Tack kernel is a 1-D grid of
// 1-D groups with no dynamic shared memory and its arguments as an array of
// pointers, so the backends with such a call pass only what is theirs.
#pragma once

#include "runtime/gpu/gpu_backend.hpp"

namespace tack::runtime {

// The launch call's result (the driver's error code) for `function` on `stream`.
template <class LaunchCall, class Function, class Stream>
auto grid_launch(LaunchCall launch, Function function, Stream stream, const GpuDispatch& d) {
  return launch(function, static_cast<unsigned>(d.groups), 1, 1, d.group, 1, 1, 0, stream, d.args.pointers(), nullptr);
}

}  // namespace tack::runtime
