// Walks the loader's list of loaded objects (dl_iterate_phdr) for the one whose
// PT_LOAD segments hold an address.
#include "support/loaded_file.hpp"

#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdint>

namespace tack::support {
namespace {

struct Search {
  std::uintptr_t address;
  bool found = false;
  std::string path;
};

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && s->address >= begin && s->address < begin + ph.p_memsz) {
      s->found = true;
      if (info->dlpi_name) s->path = info->dlpi_name;
      return 1;
    }
  }
  return 0;
}

}  // namespace

std::string loaded_file_of(const void* address) {
  Search s{reinterpret_cast<std::uintptr_t>(address), false, {}};
  dl_iterate_phdr(visit, &s);
  if (!s.found) return {};
  if (s.path.empty()) {  // the program itself has no name in the list
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);
    if (n > 0) s.path.assign(exe, static_cast<std::size_t>(n));
  }
  return s.path;
}

}  // namespace tack::support
