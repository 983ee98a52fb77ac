// The device reduction of a whole f32 array (Array::sum/min/max on a GPU;
// reference: "Device reductions"), written once in Tack's kernel language, so
// every backend generates, compiles, caches and launches it as any kernel.
#pragma once

#include "runtime/reductions/host_reduce.hpp"

#include <tack/kernel.hpp>

#include <cstdint>

namespace tack::runtime {

// The kernel for `op`, traced at its first launch: (x: f32 array, out: f32
// array, groups: i64). It runs `groups` groups of 256 work-items; each
// work-item combines every (groups * 256)-th element of x from its global id on
// (64-bit indices), the group combines its 256 values as a tree, and work-item
// 0 combines the group's result into out[0] with an atomic. out[0] must hold
// reduction_identity_bits(op) first. min and max combine as Tack's min and max
// (a NaN yields the other operand), so NaN is skipped unless every element is
// NaN; the order of a sum is unspecified.
const Kernel& array_reduction_kernel(ReduceOp op);

// The f32 bit pattern out[0] starts from: 0.0 for a sum, a NaN for min and max
// (which any number replaces).
std::uint32_t reduction_identity_bits(ReduceOp op);

}  // namespace tack::runtime
