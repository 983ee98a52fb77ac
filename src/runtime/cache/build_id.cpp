// Reading libtack's GNU build-id note from its loaded program headers.
#include "runtime/cache/build_id.hpp"

#include "support/loaded_file.hpp"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>

namespace tack::runtime {
namespace {

// The hex digits of the GNU build-id note among an object's program headers; empty when it has none.
std::string build_id_note(const dl_phdr_info& info) {
  std::string id;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const auto& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof note);
      const unsigned char* name = p + sizeof note;
      const unsigned char* desc = name + ((note.n_namesz + 3) & ~3u);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 &&
          desc + note.n_descsz <= end) {
        // By hand, not snprintf: a process's first printf builds its locale, on every cached first call.
        for (std::uint32_t b = 0; b < note.n_descsz; ++b) {
          id += "0123456789abcdef"[desc[b] >> 4];
          id += "0123456789abcdef"[desc[b] & 15];
        }
        return id;
      }
      p = desc + ((note.n_descsz + 3) & ~3u);
    }
  }
  return id;
}

std::string compute() {
  const void* inside = reinterpret_cast<const void*>(&library_build_id);
  std::string id;
  support::visit_loaded_object(inside, [&](const dl_phdr_info& info) { id = build_id_note(info); });
  if (!id.empty()) return "build-id " + id;
  // No note: the library file's path, size and modification time stand in for it.
  const std::string file = support::loaded_file_of(inside);
  struct stat st {};
  if (!file.empty() && stat(file.c_str(), &st) == 0)
    return "file " + file + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtime);
  return "unknown build";
}

}  // namespace

const std::string& library_build_id() {
  static const std::string id = compute();
  return id;
}

}  // namespace tack::runtime
