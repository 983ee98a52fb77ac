// A stand-in Level Zero loader for tests on machines without an Intel GPU
// (libtack_fake_level_zero.so): it exports every entry point the table in
// src/drivers/level_zero_api.hpp resolves, implemented on the host, and these
// control functions, with which a test sets device properties, injects
// failures and reads back what the backend asked the "driver" to do. A test
// executable links the library and points TACK_LEVEL_ZERO_LIBRARY at the same
// file, so the backend's dlopen finds the instance the test controls.
//
// Semantics:
//   - device and host allocations are host memory; an immediate list executes
//     each append at once (copies and fills really happen), and a barrier's
//     event is signalled at once;
//   - kernels are recorded, never run: name, group count, group size and each
//     argument's bytes as set when the launch was appended;
//   - zeModuleCreate accepts SPIR-V (the magic number first) and, as a native
//     binary, what zeModuleGetNativeBinary returned ("FAKE-NATIVE\n" + the
//     SPIR-V) unless told to refuse it; zeKernelCreate wants a name that occurs
//     in the module's bytes;
//   - images are host memory too: a copy into one keeps the texels, and a
//     3D image of anything but one 32-bit float channel, or past
//     maxImageDims3D, is a "misuse";
//   - freeing or copying memory that is not a live allocation is a "misuse";
//   - each allocation remembers its context, device and kind, which
//     zeMemGetAllocProperties reports (unknown for another context's).
#pragma once

#include "drivers/level_zero_api.hpp"

#include <cstddef>
#include <cstdint>

extern "C" {

// Properties, counters, the log, launches, injected failures and misuses back to their defaults (a device
// with groups of up to 1024, 65535 groups, fp64, 64-bit atomics, API 1.6 and the memory-free-policies
// extension). Live allocations stay.
void fake_ze_reset();

// Device properties the queries report from now on.
void fake_ze_set_compute(std::uint32_t max_total_group_size, std::uint32_t max_group_size_x,
                         std::uint32_t max_group_count_x);
void fake_ze_set_module(std::uint32_t fp64_flags, std::uint32_t module_flags);
void fake_ze_set_device_id(std::uint32_t device_id);
void fake_ze_set_api_version(std::uint32_t version);    // e.g. (1 << 16) | 5 for API 1.5
void fake_ze_set_free_policies_extension(int present);  // ZE_extension_memory_free_policies listed
void fake_ze_refuse_native_binaries(int refuse);        // zeModuleCreate(NATIVE) fails
// zeDeviceGetImageProperties' maxImageDims3D and maxSamplers (by default 2048 and 0, as Xe-HPC: no samplers).
void fake_ze_set_images(std::uint32_t max_image_dims_3d, std::uint32_t max_samplers);
// Images made by zeImageCreate and not yet destroyed.
int fake_ze_live_images();

// The next `times` calls of `call` (an exported name) return `code` without doing anything; times < 0: every call.
void fake_ze_fail(const char* call, int code, int times);
// How many times an entry point was called (by exported name), failed or not.
int fake_ze_count(const char* call);
// The timeout (ns) of the last zeCommandListHostSynchronize or zeEventHostSynchronize, failed or not.
std::uint64_t fake_ze_last_wait_timeout();

// The operation log, in the order operations were appended: "alloc_device", "alloc_host", "free",
// "free_defer", "copy", "fill", "launch <name>", "barrier", "barrier_event", "list_sync", "event_sync",
// "module_spirv", "module_native", "list_async", "list_sync_mode", "image_create" (dst: the image, bytes: its
// size), "image_copy" (dst: the image, src: the source, payload: the texels), "image_destroy" (dst: the image).
int fake_ze_log_size();
const char* fake_ze_log_entry(int index);  // valid until the next call into the fake
struct FakeZeOp {
  void* dst;
  const void* src;
  std::size_t bytes;
  int src_kind;         // 0: pageable host memory, 1: USM host memory, 2: device memory
  const void* payload;  // copies and fills: the bytes written (kept until reset)
};
int fake_ze_log_op(int index, FakeZeOp* out);

struct FakeZeLaunch {
  char name[128];
  std::uint32_t groups[3];
  std::uint32_t group_size[3];
  int arg_count;
  std::size_t arg_size[32];
  unsigned char args[32][8];  // the first 8 bytes of each argument's value
  int log_index;
};
int fake_ze_launch_count();
int fake_ze_launch(int index, FakeZeLaunch* out);

// Live device + host allocations, and live contexts made by zeContextCreate.
int fake_ze_live_allocations();
int fake_ze_live_contexts();
// The context of the allocation holding ptr (a backend's, for its array), and the device zeDeviceGet reports
// (other = 0) or one it never reports (other = 1): for tests that allocate memory themselves.
tack::drivers::ze::ze_context_handle_t fake_ze_context_of(const void* ptr);
tack::drivers::ze::ze_device_handle_t fake_ze_device(int other);
// Besides the table's entry points the fake exports zeMemAllocShared (as the specification declares it).
tack::drivers::ze::ze_result_t zeMemAllocShared(tack::drivers::ze::ze_context_handle_t context,
                                                const tack::drivers::ze::ze_device_mem_alloc_desc_t* device_desc,
                                                const tack::drivers::ze::ze_host_mem_alloc_desc_t* host_desc,
                                                std::size_t bytes, std::size_t alignment,
                                                tack::drivers::ze::ze_device_handle_t device, void** ptr);
// The build flags of the last zeModuleCreate.
const char* fake_ze_last_build_flags();

// Misuses since the last reset, one per line; "" when none.
const char* fake_ze_misuse();

}  // extern "C"
