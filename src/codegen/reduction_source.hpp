// Device reductions of whole f32 arrays (reference: "Device reductions"): a
// 256-lane tree in each group, then an unordered atomic combination of the
// groups' partial results into one word. min and max skip NaN unless every
// element is NaN (DESIGN §4, as host_reduce does); a sum's order is unspecified.
#pragma once

#include "codegen/c_family.hpp"

namespace tack::codegen {

enum class ArrayReduction { Sum, Min, Max };

// OpenCL C for `op`. Its kernel takes (__global const float* x, __global uint* out,
// long n), runs in groups of kGpuGroupSize work-items over any number of
// groups (each lane strides over the array), and combines into *out, which the
// host sets to the identity first: reduction_identity_bits(op).
CSource opencl_reduction_source(ArrayReduction op);

// CUDA C for `op` (HIP compiles it after its runtime header): the same kernel,
// taking (const float* x, unsigned int* out, long long n), in blocks of kGpuGroupSize.
CSource cuda_reduction_source(ArrayReduction op);

// MSL for `op` (the metal backend): the same kernel, taking x, out and n as
// buffers 0, 1 and 2, in threadgroups of kGpuGroupSize. n is a 32-bit uint, so
// the host reduces an array of 2^32 or more elements itself (reference:
// "Device reductions"); the loop index is 64-bit so it cannot wrap below n.
CSource msl_reduction_source(ArrayReduction op);

// The f32 bit pattern the result word starts from: 0.0 for a sum, a NaN for
// min and max (any element replaces it).
std::uint32_t reduction_identity_bits(ArrayReduction op);

}  // namespace tack::codegen
