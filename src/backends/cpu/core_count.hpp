// How many threads the CPU backend uses: TACK_CPU_THREADS, else the physical
// cores this process may run on (docs/cpu-threading.md).
#pragma once

namespace tack::backends::cpu {

// The largest thread count TACK_CPU_THREADS (and the device option num_threads) accepts.
inline constexpr int kMaxCpuThreads = 1024;

// Logical processors this process may run on: the CPUs in its affinity mask on
// Linux, else std::thread::hardware_concurrency(). At least 1.
int logical_cpu_count();

// Physical cores this process may run on. On Linux: the distinct (package, core)
// pairs among the CPUs in the process's affinity mask, read from
// /sys/devices/system/cpu/cpu*/topology, else from /proc/cpuinfo, else the
// number of CPUs in the mask; then capped by a cgroup v2 CPU quota (cpu.max),
// so a container limited to 2 CPUs on a 64-core host gets 2. On macOS:
// hw.physicalcpu. Elsewhere: std::thread::hardware_concurrency(). At least 1,
// at most kMaxCpuThreads. Reads files on every call: call it once.
int physical_core_count();

// TACK_CPU_THREADS when set and not empty: a decimal integer from 1 to
// kMaxCpuThreads, else tack::InvalidArgument naming the variable and its value.
// Unset or empty: physical_core_count().
int default_cpu_threads();

}  // namespace tack::backends::cpu
