// Building OpenCL C for the backend's device: clBuildProgram with the device's
// options, or a program binary from the disk cache (docs/caching.md), so a variant
// seen by an earlier process loads without running the code generator or the
// OpenCL C compiler.
#pragma once

#include "backends/opencl/opencl_queue.hpp"
#include "runtime/gpu/build_request.hpp"
#include "support/no_copy.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace tack::backends::opencl {
using namespace tack::runtime;

// A built program and the one kernel Tack takes from it.
class Program : support::NoCopy {
 public:
  Program(drivers::cl::cl_program program, drivers::cl::cl_kernel kernel, std::string entry, std::size_t group_limit);
  ~Program();

  drivers::cl::cl_kernel kernel() const { return kernel_; }
  const std::string& entry() const { return entry_; }
  // CL_KERNEL_WORK_GROUP_SIZE: the most work-items per group this kernel runs with.
  std::size_t group_limit() const { return group_limit_; }

 private:
  drivers::cl::cl_program program_;
  drivers::cl::cl_kernel kernel_;
  std::string entry_;
  std::size_t group_limit_;
};

// The program the request asks for: loaded from the disk cache when an entry
// exists for the request's key, else built from its generated source and
// stored. A build failure throws CompileError with the build log and the source.
std::unique_ptr<Program> build_program(const Queue& queue, const BuildRequest& request);

// Programs built from source / loaded from a cached binary in this process (for tests).
std::uint64_t source_build_count();
std::uint64_t binary_load_count();

}  // namespace tack::backends::opencl
