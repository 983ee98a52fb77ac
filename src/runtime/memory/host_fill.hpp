// Filling host memory with copies of one element (Array::fill on the cpu and interp devices): a large fill runs
// in blocks over the backend's host workers, so it goes at the memory's speed on every core, not one.
#pragma once

#include <cstddef>

namespace tack::runtime {

class Backend;

// Writes `count` copies of the `element_size` bytes (1, 2, 4 or 8) at `element` from `data` on, in blocks run by
// backend.run_host_parallel (the CPU's pool; the interpreter's runs them on the calling thread).
void fill_host(const Backend& backend, void* data, const void* element, std::size_t element_size, std::size_t count);

}  // namespace tack::runtime
