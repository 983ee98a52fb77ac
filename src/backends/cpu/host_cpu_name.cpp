// The host CPU's name from /proc/cpuinfo: its first "model name" line.
#include "backends/cpu/host_cpu_name.hpp"

#include <fstream>

namespace tack::backends::cpu {

std::string host_cpu_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const std::size_t begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? std::string() : line.substr(begin);
  }
  return {};
}

}  // namespace tack::backends::cpu
