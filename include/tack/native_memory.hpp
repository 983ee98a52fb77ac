// Memory that crosses Tack's edge: what Array::share() and Array::export_memory()
// hand to code outside Tack, and what tack::array_from_ptr() takes in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tack {

// An array's memory as the device's own API names it.
struct NativeMemory {
  // What `handle` is: "host" (a host pointer: cpu, interp), "cuda" (a CUdeviceptr),
  // "hip" and "level_zero" (device pointers), "opencl" (a cl_mem), "metal" (an
  // unretained id<MTLBuffer>).
  std::string kind;
  std::uintptr_t handle = 0;
  std::size_t bytes = 0;  // the array's bytes, from `handle` on
  int device_id = 0;      // the device's ordinal in its API (CUDA, HIP); 0 elsewhere
};

// A CUDA array's memory as an OS handle, for another process or API
// (cuMemImportFromShareableHandle with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
// then cuMemMap of allocation_bytes; Vulkan and OpenGL import the same fd).
struct ExportedMemory {
  int fd = -1;                       // a new POSIX file descriptor each call; the caller owns it and closes it
  std::size_t allocation_bytes = 0;  // the whole allocation, a multiple of the device's granularity
  std::size_t bytes = 0;             // the array's bytes, at offset 0 of the allocation
  int device_ordinal = 0;            // the CUDA device the memory lives on
};

}  // namespace tack
