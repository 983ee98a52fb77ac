// A stand-in CUDA driver for tests on machines without a GPU
// (libtack_fake_cuda.so): it exports every entry point the driver table in
// src/drivers/cuda_api.hpp resolves, implemented on the host, and these control
// functions, with which a test sets attributes, injects failures and reads back
// what the backend asked the "driver" to do. A test executable links the
// library and points TACK_CUDA_LIBRARY at the same file, so the backend's
// dlopen finds the instance the test controls.
//
// Semantics, chosen to catch mistakes a real driver would punish:
//   - device pointers are host allocations; copies, fills and 3-D copies really
//     happen, on the calling thread, when queued (a stream is always idle unless
//     a test injects CUDA_ERROR_NOT_READY into cuStreamQuery);
//   - kernels are recorded, never run: name, grid, block, shared bytes, stream
//     and each parameter's bytes, sized from the PTX .entry signature;
//   - calls that need a context fail with CUDA_ERROR_INVALID_CONTEXT (201) when
//     none is current on the calling thread, and freeing or copying to memory
//     that is not a live allocation is a "misuse", recorded as text;
//   - VMM allocations are memfd-backed, so an exported fd maps the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// Attributes, counters, the log, launches, injected failures and misuses back
// to their defaults. Live allocations, streams, modules and contexts stay (a
// device made by an earlier test of the process still holds them): compare
// fake_cuda_live_allocations() before and after rather than with zero.
void fake_cuda_reset();

// A device attribute (CUdevice_attribute number) the fake reports, e.g. 115
// (memory pools) = 0, 5 (max grid dim x) = 4. With memory pools off,
// cuMemAllocAsync returns CUDA_ERROR_NOT_SUPPORTED.
void fake_cuda_set_attribute(int attribute, int value);
// The number of devices cuDeviceGetCount reports (default 1).
void fake_cuda_set_device_count(int count);
// What cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) returns (default 1024).
void fake_cuda_set_function_max_threads(int threads);

// The next `times` calls of `call` (an exported name, e.g. "cuStreamSynchronize")
// return `code` without doing anything; times < 0: every call until reset.
void fake_cuda_fail(const char* call, int code, int times);

// Makes a new context of `device` (not the primary one) current on the calling
// thread, as an application that created its own would; returns its handle.
void* fake_cuda_make_current_context(int device);
// The calling thread's current context (nullptr when none).
void* fake_cuda_current_context();
// The device's primary context handle (made on first retain) and its retain count.
void* fake_cuda_primary_context(int device);
int fake_cuda_primary_refcount(int device);

// How many times an entry point was called (by exported name), failed or not.
int fake_cuda_count(const char* call);
// Device bytes currently allocated (cuMemAlloc + cuMemAllocAsync), and how many allocations.
std::size_t fake_cuda_live_bytes();
int fake_cuda_live_allocations();

// The operation log, in the order operations were queued: "alloc_async",
// "free_async", "alloc", "free", "alloc_host", "free_host", "alloc_managed", "memset", "htod", "dtoh", "dtod",
// "launch <entry>", "memcpy3d", "stream_sync", "event_record", "event_sync",
// "module_load", "stream_create".
int fake_cuda_log_size();
const char* fake_cuda_log_entry(int index);  // valid until the next call into the fake
// Details of one log entry: the device pointer written (htod, memset, dtod,
// alloc*, free*) or read (dtoh, and memcpy3d from device memory), the byte count, and for htod a copy of the
// bytes uploaded (nullptr otherwise). The context current during the call.
struct FakeCudaOp {
  std::uint64_t pointer;
  std::size_t bytes;
  const void* payload;
  const void* stream;
  const void* context;
};
int fake_cuda_log_op(int index, FakeCudaOp* out);

// Kernel launches in order (a launch is also a "launch <entry>" log entry).
struct FakeCudaLaunch {
  char name[128];
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  const void* stream;
  const void* context;
  int param_count;               // .param lines of the entry's PTX signature
  std::size_t param_size[32];    // each from its PTX type (.u64: 8, .b8 x[16]: 16, ...)
  unsigned char params[32][16];  // the first 16 bytes of each parameter's value
  void** raw_params;             // the pointer array the caller passed (dangling after the call)
  int log_index;                 // its position in the log
};
int fake_cuda_launch_count();
int fake_cuda_launch(int index, FakeCudaLaunch* out);

// Modules loaded (cuModuleLoadDataEx calls that succeeded) and the PTX text of one.
int fake_cuda_module_count();
const char* fake_cuda_module_ptx(int index);

// Texture objects and 3-D arrays currently alive.
int fake_cuda_live_textures();
int fake_cuda_live_arrays();
// Streams, events and modules currently alive (made and not yet destroyed or unloaded).
int fake_cuda_live_streams();
int fake_cuda_live_events();
int fake_cuda_live_modules();

// Misuses seen since the last reset (a free of an unknown pointer, a copy
// outside any live allocation, a call with a destroyed stream), one per line;
// "" when there were none.
const char* fake_cuda_misuse();

}  // extern "C"
