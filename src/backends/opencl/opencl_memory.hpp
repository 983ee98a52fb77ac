// Device memory of the opencl backend: a Buffer over one cl_mem, whose writes
// and fills are queued in order with launches and whose reads wait.
#pragma once

#include "backends/opencl/opencl_queue.hpp"
#include "runtime/gpu/device_buffer.hpp"

namespace tack::backends::opencl {
using namespace tack::runtime;

// Its operations are Queue::write_buffer and its siblings.
using DeviceBuffer = DeviceBufferOf<Queue, drivers::cl::cl_mem>;

}  // namespace tack::backends::opencl
