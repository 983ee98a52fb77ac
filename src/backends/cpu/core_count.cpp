// Physical cores, not logical processors: two hyperthreads of one core share
// its load/store units and its bandwidth to memory, so a memory-bound kernel
// gains nothing from the second, and a pool sized to logical CPUs mostly adds
// fan-out cost. Only the CPUs this process may run on count (affinity, quota).
#include "backends/cpu/core_count.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

namespace tack::runtime::cpu {
namespace {

int hardware_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxCpuThreads));
}

int clamp_threads(long n) { return static_cast<int>(std::clamp<long>(n, 1, kMaxCpuThreads)); }

#if defined(__linux__)

// The CPUs in this process's affinity mask, ascending; empty if it cannot be read.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  for (int size = 1024; size <= (1 << 18); size *= 4) {
    cpu_set_t* set = CPU_ALLOC(size);
    if (!set) return cpus;
    std::size_t bytes = CPU_ALLOC_SIZE(size);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      for (int c = 0; c < size; ++c)
        if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(c);
      CPU_FREE(set);
      return cpus;
    }
    CPU_FREE(set);  // EINVAL: the kernel's mask is larger than ours; retry larger
  }
  return cpus;
}

bool read_long(const std::string& path, long* out) {
  std::ifstream in(path);
  long v = 0;
  if (!(in >> v)) return false;
  *out = v;
  return true;
}

// Distinct (package, core) pairs from sysfs; 0 if any CPU's topology is missing.
int cores_from_sysfs(const std::vector<int>& cpus) {
  std::set<std::pair<long, long>> cores;
  for (int c : cpus) {
    std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    long package = 0, core = 0;
    if (!read_long(dir + "physical_package_id", &package) || !read_long(dir + "core_id", &core)) return 0;
    cores.emplace(package, core);
  }
  return static_cast<int>(cores.size());
}

// Distinct (physical id, core id) pairs from /proc/cpuinfo for the allowed
// CPUs; 0 when the file lacks them (as on many ARM kernels).
int cores_from_cpuinfo(const std::vector<int>& cpus) {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return 0;
  std::set<int> allowed(cpus.begin(), cpus.end());
  std::set<std::pair<long, long>> cores;
  std::set<int> seen;
  long processor = -1, package = -1, core = -1;
  auto flush = [&] {
    if (processor >= 0 && allowed.count(static_cast<int>(processor)) && package >= 0 && core >= 0) {
      cores.emplace(package, core);
      seen.insert(static_cast<int>(processor));
    }
    processor = package = core = -1;
  };
  auto value = [](const std::string& line) -> long {
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) return -1;
    char* end = nullptr;
    const char* s = line.c_str() + colon + 1;
    long v = std::strtol(s, &end, 10);
    return end == s ? -1 : v;
  };
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) {
      flush();
    } else if (line.rfind("processor", 0) == 0) {
      processor = value(line);
    } else if (line.rfind("physical id", 0) == 0) {
      package = value(line);
    } else if (line.rfind("core id", 0) == 0) {
      core = value(line);
    }
  }
  flush();
  return seen.size() == allowed.size() ? static_cast<int>(cores.size()) : 0;
}

// The CPU quota of this process's cgroup (v2, cpu.max), rounded up, walking to
// the root and keeping the smallest; 0 when there is none or it can't be read.
int cgroup_cpu_limit() {
  std::ifstream probe("/sys/fs/cgroup/cgroup.controllers");
  if (!probe) return 0;  // not a unified (v2) hierarchy
  std::ifstream self("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty() || path[0] != '/') return 0;
  int limit = 0;
  for (;;) {
    std::ifstream max("/sys/fs/cgroup" + (path == "/" ? std::string() : path) + "/cpu.max");
    std::string quota;
    double period = 0;
    if (max >> quota >> period && quota != "max" && period > 0) {
      char* end = nullptr;
      double q = std::strtod(quota.c_str(), &end);
      if (end != quota.c_str() && q > 0) {
        int cpus = static_cast<int>(std::max(1.0, std::ceil(q / period)));
        limit = limit == 0 ? cpus : std::min(limit, cpus);
      }
    }
    if (path == "/") break;
    std::size_t slash = path.find_last_of('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
  return limit;
}

#endif  // __linux__

}  // namespace

int logical_cpu_count() {
#if defined(__linux__)
  std::vector<int> cpus = allowed_cpus();
  if (!cpus.empty()) return clamp_threads(static_cast<long>(cpus.size()));
#endif
  return hardware_threads();
}

int physical_core_count() {
#if defined(__linux__)
  std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) return hardware_threads();
  int cores = cores_from_sysfs(cpus);
  if (cores == 0) cores = cores_from_cpuinfo(cpus);
  if (cores == 0) cores = static_cast<int>(cpus.size());
  if (int quota = cgroup_cpu_limit(); quota > 0) cores = std::min(cores, quota);
  return clamp_threads(cores);
#elif defined(__APPLE__)
  int cores = 0;
  std::size_t size = sizeof(cores);
  if (sysctlbyname("hw.physicalcpu", &cores, &size, nullptr, 0) == 0 && cores > 0) return clamp_threads(cores);
  return hardware_threads();
#else
  return hardware_threads();
#endif
}

int default_cpu_threads() {
  const char* value = std::getenv("TACK_CPU_THREADS");
  if (!value || !*value) return physical_core_count();
  long n = 0;
  bool ok = true;
  for (const char* p = value; *p; ++p) {
    if (*p < '0' || *p > '9' || n > kMaxCpuThreads) {
      ok = false;
      break;
    }
    n = n * 10 + (*p - '0');
  }
  if (!ok || n < 1 || n > kMaxCpuThreads)
    throw InvalidArgument("TACK_CPU_THREADS=\"" + std::string(value) + "\" is not a thread count: expected an integer from 1 to " +
                          std::to_string(kMaxCpuThreads));
  return static_cast<int>(n);
}

}  // namespace tack::runtime::cpu
