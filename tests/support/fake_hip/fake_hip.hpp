// A stand-in HIP runtime for the hip backend's tests on a machine without an
// AMD GPU (tests/unit/test_hip_runtime.cpp): it exports the entry points Tack
// resolves, keeps "device memory" in host memory, runs copies and fills at
// once, and records every call by name, so a test checks what Tack asked for
// and in which order. It does not run kernels (hipRTC cannot compile here
// without a GPU); it loads modules only when a test asks (modules_load), for a
// code object a test put in the disk cache, and records their launches.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fake_hip {

struct State {
  std::mutex mutex;
  std::vector<std::string> calls;     // entry point names, in call order
  std::map<void*, std::size_t> live;  // allocations by address
  std::map<void*, int> device_of;     // the device current at each allocation (hipPointerGetAttribute)
  int max_grid_dim_x = 2147483647;
  int device_count = 1;
  int memory_pools = 1;
  std::size_t total_memory = std::size_t{1} << 30;
  int event_query = 0;
  bool modules_load = false;  // hipModuleLoadData and hipModuleGetFunction succeed (no kernel ever runs)  // what
                              // hipEventQuery returns: 600 (hipErrorNotReady) simulates work that never ends
};

State& state();
// The calls recorded since the last take, and clears them.
std::vector<std::string> take_calls();

}  // namespace fake_hip
