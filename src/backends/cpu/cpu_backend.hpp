// The CPU as a device: tack::device("cpu"), LLVM-compiled kernels run by a
// persistent thread pool.
#pragma once

#include "runtime/devices/backend.hpp"

#include <memory>

namespace tack::backends::cpu {
using namespace tack::runtime;
std::shared_ptr<Backend> make_cpu_backend(const DeviceOptions& options);

// What tack::inspect shows on the CPU (Backend::source of the kernel the pipeline lowered for the cpu row),
// generated as for the x86-64 target with `x86_features` (LLVM's spelling, "+avx,+avx2,+avx512f"), SIMD
// gangs on and libmvec loaded, whatever this host and TACK_CPU_SIMD say: the inspect golden pins its text
// with it.
std::string source_for_pinned_target(const ir::Kernel& lowered, const std::string& x86_features);
}  // namespace tack::backends::cpu
