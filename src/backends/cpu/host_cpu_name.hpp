// The host CPU's marketing name, for reports (tack::about): Linux's /proc/cpuinfo "model name".
#pragma once

#include <string>

namespace tack::backends::cpu {

// "AMD EPYC 7B13 64-Core Processor"; empty where the system does not say.
std::string host_cpu_name();

}  // namespace tack::backends::cpu
