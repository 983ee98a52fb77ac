// Physical cores, not logical processors: two hyperthreads of one core share
// its load/store units and its bandwidth to memory, so a memory-bound kernel
// gains nothing from the second, and a pool sized to logical CPUs mostly adds
// fan-out cost. Only the CPUs this process may run on count (affinity, quota).
#include "backends/cpu/core_count.hpp"

#include "support/env.hpp"

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
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

namespace tack::backends::cpu {
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

// A small file's text (at most 4 KiB); empty when unreadable. POSIX reads, not
// std::ifstream: the first stream of a process builds its locale (a tenth of a
// millisecond of a cached program's first call).
std::string read_text(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

bool file_exists(const char* path) { return ::access(path, F_OK) == 0; }

// The integer a small sysfs file starts with.
bool read_long(const std::string& path, long* out) {
  const std::string text = read_text(path);
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str()) return false;
  *out = v;
  return true;
}

// Whether the kernel says no core runs two hardware threads now
// (/sys/devices/system/cpu/smt/active is 0): then every allowed CPU is a core
// of its own, and one file read replaces two per CPU (sysfs reads were a fifth
// of a cached program's first kernel call).
bool smt_inactive() {
  long active = 1;
  return read_long("/sys/devices/system/cpu/smt/active", &active) && active == 0;
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
  if (!file_exists("/sys/fs/cgroup/cgroup.controllers")) return 0;  // not a unified (v2) hierarchy
  const std::string cgroups = read_text("/proc/self/cgroup");
  std::string path;
  for (std::size_t at = 0; at < cgroups.size();) {
    std::size_t end = cgroups.find('\n', at);
    if (end == std::string::npos) end = cgroups.size();
    if (cgroups.compare(at, 3, "0::") == 0) path = cgroups.substr(at + 3, end - at - 3);
    at = end + 1;
  }
  if (path.empty() || path[0] != '/') return 0;
  int limit = 0;
  for (;;) {
    // "max 100000" or "<quota> <period>"
    const std::string max = read_text("/sys/fs/cgroup" + (path == "/" ? std::string() : path) + "/cpu.max");
    char* end = nullptr;
    const double q = std::strtod(max.c_str(), &end);
    const double period = end != max.c_str() ? std::strtod(end, nullptr) : 0.0;
    if (end != max.c_str() && q > 0 && period > 0) {
      int cpus = static_cast<int>(std::max(1.0, std::ceil(q / period)));
      limit = limit == 0 ? cpus : std::min(limit, cpus);
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
  int cores = smt_inactive() ? static_cast<int>(cpus.size()) : cores_from_sysfs(cpus);
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
  const std::optional<std::string> value = support::env_text("TACK_CPU_THREADS");
  if (!value) return physical_core_count();
  long n = 0;
  bool ok = true;
  for (const char* p = value->c_str(); *p; ++p) {
    if (*p < '0' || *p > '9' || n > kMaxCpuThreads) {
      ok = false;
      break;
    }
    n = n * 10 + (*p - '0');
  }
  if (!ok || n < 1 || n > kMaxCpuThreads)
    throw InvalidArgument("TACK_CPU_THREADS=\"" + *value + "\" is not a thread count: expected an integer from 1 to " +
                          std::to_string(kMaxCpuThreads));
  return static_cast<int>(n);
}

}  // namespace tack::backends::cpu
