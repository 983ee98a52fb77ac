// OpenCL C for the opencl and level_zero backends (reference: Level Zero,
// Compilation and Launch): a 64-bit index from the group id, since some drivers'
// get_global_id(0) wraps at 2^32; FP_CONTRACT off, because PoCL and others fuse
// across statements; saturating conversions through convert_<T>_sat_rtz;
// cl_khr_fp64 and the 64-bit atomics extensions enabled where the kernel uses them.
#pragma once

#include "codegen/c_family.hpp"

namespace tack::codegen {

CSource generate_opencl(const abi::PackedKernel& packed);

}  // namespace tack::codegen
