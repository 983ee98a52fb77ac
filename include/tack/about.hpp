// What this build of Tack is and where it keeps its disk cache: for bug reports (python -m tack, tack.info()).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tack {

struct LibraryInfo {
  std::string version;          // Tack's, e.g. "0.1.0"
  std::string llvm_version;     // the LLVM the CPU backend compiles with; empty in a build without the CPU backend
  bool disk_cache = false;      // whether compiled kernels are kept on disk (TACK_CACHE)
  std::string cache_directory;  // where (TACK_CACHE_DIR, else $XDG_CACHE_HOME/tack, else ~/.cache/tack)
  std::uint64_t cache_max_bytes = 0;  // the cap on its files' total size (TACK_CACHE_MAX_BYTES); 0: no cap
};

// Read from the build and the environment now; loads no compiler and no driver.
LibraryInfo library_info();

class Device;
// What `device` is, as name/value pairs for bug reports: e.g. {"device", the name its driver gives}, {"driver",
// the driver's version}, {"compiler", "LLVM 19.1.7"}. The names vary by backend; read from what the device learnt
// when it was made, so it asks the driver nothing.
std::vector<std::pair<std::string, std::string>> about(const Device& device);

}  // namespace tack
