// Whether the CPU runs a kernel's work-items as SIMD gangs, how many per gang,
// and why: read by the code generator and said by tack::inspect
// (docs/cpu-codegen.md).
#pragma once

#include "ir/ir.hpp"

#include <string>

namespace tack::analysis {

struct SimdPlan {
  unsigned lanes = 0;  // 0: the scalar path (one work-item per iteration, LLVM's loop vectorizer)
  std::string why;     // one line for tack::inspect
};

// `vector_bits`: the host's widest vector register (512 with AVX-512, 256 with
// AVX2, 128 with SSE or NEON); `enabled`: false when TACK_CPU_SIMD=0.
SimdPlan plan_simd(const ir::Kernel& typed, unsigned vector_bits, bool enabled);

}  // namespace tack::analysis
