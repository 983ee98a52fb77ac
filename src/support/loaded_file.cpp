// Walks the loader's list of loaded objects (dl_iterate_phdr) for the one whose
// PT_LOAD segments hold an address.
#include "support/loaded_file.hpp"

#include <unistd.h>

#include <climits>
#include <cstdint>

namespace tack::support {
namespace {

struct Search {
  std::uintptr_t address;
  const std::function<void(const dl_phdr_info&)>* visit;
  bool found = false;
};

int holds(dl_phdr_info* info, std::size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && s->address >= begin && s->address < begin + ph.p_memsz) {
      s->found = true;
      (*s->visit)(*info);
      return 1;
    }
  }
  return 0;
}

}  // namespace

bool visit_loaded_object(const void* address, const std::function<void(const dl_phdr_info&)>& visit) {
  Search s{reinterpret_cast<std::uintptr_t>(address), &visit};
  dl_iterate_phdr(holds, &s);
  return s.found;
}

std::string loaded_file_of(const void* address) {
  std::string path;
  if (!visit_loaded_object(address, [&](const dl_phdr_info& info) {
        if (info.dlpi_name) path = info.dlpi_name;
      }))
    return {};
  if (path.empty()) {  // the program itself has no name in the list
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);
    if (n > 0) path.assign(exe, static_cast<std::size_t>(n));
  }
  return path;
}

}  // namespace tack::support
