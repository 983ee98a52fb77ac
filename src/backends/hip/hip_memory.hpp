// Device memory of the hip backend: a Buffer over one device allocation (from
// the buffer cache or the runtime's pool). Writes and fills are queued on the
// device's stream with the launches and return; reads wait on an event first,
// then copy (reference: HIP, "How each backend queues and waits").
#pragma once

#include "backends/hip/hip_device.hpp"
#include "runtime/gpu/device_buffer.hpp"

namespace tack::backends::hip {
using namespace tack::runtime;

// The device's DeviceBuffer operations are Device::write_buffer and its siblings.
using DeviceBuffer = DeviceBufferOf<Device, BufferCache::Block>;

// The device address of a hip array (for interop and benchmarks).
void* device_pointer(const ArrayStorage& array);

}  // namespace tack::backends::hip
