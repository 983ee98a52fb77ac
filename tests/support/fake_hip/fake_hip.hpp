// A stand-in HIP runtime for the hip backend's tests on a machine without an
// AMD GPU (tests/unit/test_hip_runtime.cpp): it exports the entry points Tack
// resolves, keeps "device memory" in host memory, runs copies and fills at
// once, and records every call by name, so a test checks what Tack asked for
// and in which order. Beside the names it keeps an operation log with the
// pointers, sizes and uploaded bytes, and the launches, as the CUDA stand-in
// does (tests/support/fake_cuda), and a test may make a call fail.
//
// It does not run kernels (hipRTC cannot compile here without a GPU); it loads
// modules only when a test asks (modules_load), for a code object a test put
// in the disk cache. A code object that is the kernel's generated HIP C (what
// the launch tests store) gives each entry's parameters, sized from its
// signature, so a launch records each parameter's bytes; any other image loads
// with entries of unknown parameters, whose launches record none.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fake_hip {

// One operation, in call order: "alloc" (hipMalloc), "free", "alloc_async", "free_async", "htod", "dtoh",
// "memset", "launch <entry>", "event_record", "event_sync".
struct Op {
  std::string what;
  std::uint64_t pointer = 0;  // the device pointer written, read, allocated or freed
  std::size_t bytes = 0;
  std::vector<unsigned char> payload;  // htod: the bytes uploaded
  const void* stream = nullptr;
};

// One hipModuleLaunchKernel call that succeeded (also a "launch <entry>" log entry).
struct Launch {
  std::string name;
  unsigned grid[3] = {};
  unsigned block[3] = {};
  unsigned shared_bytes = 0;
  const void* stream = nullptr;
  int param_count = 0;                // the entry's parameters in its HIP C signature (0: unknown)
  std::size_t param_size[32] = {};    // each from its type (a pointer, long long: 8)
  unsigned char params[32][16] = {};  // the first 16 bytes of each parameter's value
  int log_index = -1;                 // its position in the log
};

struct State {
  std::mutex mutex;
  std::vector<std::string> calls;     // entry point names, in call order
  std::map<void*, std::size_t> live;  // allocations by address
  std::vector<Op> log;
  std::vector<Launch> launches;
  std::map<std::string, std::pair<int, int>> failures;  // by entry point: the code and how many calls left
  int live_modules = 0;
  std::map<void*, int> device_of;     // the device current at each allocation (hipPointerGetAttribute)
  int max_grid_dim_x = 2147483647;
  int device_count = 1;
  int memory_pools = 1;
  std::size_t total_memory = std::size_t{1} << 30;
  // What hipEventQuery returns: 600 (hipErrorNotReady) simulates work that never ends.
  int event_query = 0;
  int image_support = 1;                       // hipDeviceAttributeImageSupport (0: a CDNA part, textures in software)
  int max_texture3d = 16384;                   // each of the three 3D texture extents
  std::map<void*, std::vector<float>> arrays;  // live hipMalloc3DArray arrays, their texels (x fastest)
  std::map<void*, void*> textures;             // live texture objects, each to its array
  bool modules_load = false;  // hipModuleLoadData and hipModuleGetFunction succeed (no kernel ever runs)
};

State& state();
// The calls recorded since the last take, and clears them.
std::vector<std::string> take_calls();
// Clears the calls, the log, the launches and the injected failures (allocations and modules stay).
void reset();
// The next `times` calls of `call` (an exported name, e.g. "hipEventSynchronize") return `code` without doing
// anything; times < 0: every call until reset.
void fail(const std::string& call, int code, int times);
// Copies of the log and the launches so far.
std::vector<Op> log();
std::vector<Launch> launches();

}  // namespace fake_hip
