// Device memory of the level_zero backend: a Buffer over one zeMemAllocDevice
// allocation. Writes and fills are appended to the queue with the launches and
// return; reads wait for the queue, then copy. The allocation is freed with the
// driver's deferred policy, so an array dropped while a queued launch still
// uses it outlives that launch (reference: "Lifetimes").
#pragma once

#include "backends/level_zero/level_zero_queue.hpp"
#include "runtime/gpu/device_buffer.hpp"

#include <tack/array.hpp>

namespace tack::backends::level_zero {
using namespace tack::runtime;

// Its operations are Queue::write_buffer and its siblings.
using DeviceBuffer = DeviceBufferOf<Queue, void*>;

// The device address of a level_zero array (for tests, interop and benchmarks).
void* device_pointer(const ArrayStorage& array);
void* device_pointer(const tack::Array& array);

}  // namespace tack::backends::level_zero
