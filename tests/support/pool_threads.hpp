// How many of the CPU thread pool's workers (threads named tack-cpu-N) this
// process runs: for tests that a pool starts its threads only when needed.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace tack_test {

inline int pool_threads_running() {
  int n = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && name.rfind("tack-cpu-", 0) == 0) ++n;
  }
  return n;
}

}  // namespace tack_test
