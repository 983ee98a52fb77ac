// The loader reads what LLVM emits for one kernel module with the PIC
// relocation model: .text (plus .text.* sections), .rodata constant pools,
// perhaps .data/.bss, and relocations of a handful of x86-64 kinds. Calls and
// GOT loads of symbols the object does not define go through a stub and a GOT
// slot placed in the same mapping, so they reach libm wherever it is mapped.
// Unwind tables are not loaded: kernels neither throw nor are unwound through.
#include "backends/cpu/object_loader.hpp"

#include <tack/error.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__linux__) && defined(__x86_64__)
#define TACK_OBJECT_LOADER 1
#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tack::backends::cpu {

#if TACK_OBJECT_LOADER

namespace {

[[noreturn]] void refuse(const std::string& what) { throw BackendError("object loader: " + what); }

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Where each part of the image goes: sections by their permissions, then the
// stubs (executable) and the GOT (read-only once written).
struct Layout {
  enum Region { Exec, ReadOnly, Writable };
  std::vector<int> region;          // per section; -1: not loaded
  std::vector<std::size_t> offset;  // per section, within its region
  std::size_t size[3] = {0, 0, 0};
  std::size_t stubs = 0, got = 0;    // offsets of the stub and GOT tables in their regions
  std::size_t start[3] = {0, 0, 0};  // region offsets in the mapping
  std::size_t total = 0;
};

constexpr std::size_t kStubBytes = 8;  // jmp *disp32(%rip), then two int3

class Reader {
 public:
  explicit Reader(std::string_view object) : data_(object) {
    if (object.size() < sizeof(Elf64_Ehdr)) refuse("the object is shorter than an ELF header");
    std::memcpy(&eh_, object.data(), sizeof eh_);
    if (std::memcmp(eh_.e_ident, ELFMAG, SELFMAG) != 0) refuse("not an ELF object");
    if (eh_.e_ident[EI_CLASS] != ELFCLASS64 || eh_.e_ident[EI_DATA] != ELFDATA2LSB || eh_.e_machine != EM_X86_64)
      refuse("not a little-endian x86-64 ELF object");
    if (eh_.e_type != ET_REL) refuse("not a relocatable object");
    if (eh_.e_shentsize != sizeof(Elf64_Shdr) || eh_.e_shnum == 0) refuse("unexpected section header table");
    sections_.resize(eh_.e_shnum);
    const std::size_t table = eh_.e_shoff;
    if (table > data_.size() || (data_.size() - table) / sizeof(Elf64_Shdr) < eh_.e_shnum)
      refuse("the section header table lies outside the object");
    std::memcpy(sections_.data(), data_.data() + table, sizeof(Elf64_Shdr) * eh_.e_shnum);
    for (const Elf64_Shdr& s : sections_)
      if (s.sh_type != SHT_NOBITS && (s.sh_offset > data_.size() || s.sh_size > data_.size() - s.sh_offset))
        refuse("a section lies outside the object");
  }

  const std::vector<Elf64_Shdr>& sections() const { return sections_; }

  template <class T>
  std::vector<T> table(const Elf64_Shdr& s) const {
    if (s.sh_entsize != sizeof(T) || s.sh_size % sizeof(T) != 0) refuse("unexpected table entry size");
    std::vector<T> out(s.sh_size / sizeof(T));
    std::memcpy(out.data(), data_.data() + s.sh_offset, s.sh_size);
    return out;
  }

  std::string_view string(const Elf64_Shdr& strtab, std::uint32_t at) const {
    if (at >= strtab.sh_size) refuse("a name lies outside its string table");
    const char* begin = data_.data() + strtab.sh_offset + at;
    const std::size_t max = strtab.sh_size - at;
    return std::string_view(begin, strnlen(begin, max));
  }

  const char* bytes(const Elf64_Shdr& s) const { return data_.data() + s.sh_offset; }

 private:
  std::string_view data_;
  Elf64_Ehdr eh_{};
  std::vector<Elf64_Shdr> sections_;
};

bool is_got_relocation(std::uint32_t type) {
  return type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX || type == R_X86_64_REX_GOTPCRELX;
}

bool defined(const Elf64_Sym& s) { return s.st_shndx != SHN_UNDEF; }

}  // namespace

bool LoadedObject::host_supported() { return true; }

std::unique_ptr<LoadedObject> LoadedObject::load(std::string_view object, std::string_view entry) {
  Reader elf(object);
  const std::vector<Elf64_Shdr>& sec = elf.sections();
  const std::size_t n = sec.size();

  // The symbol table and its strings.
  int symtab_index = -1;
  for (std::size_t i = 0; i < n; ++i)
    if (sec[i].sh_type == SHT_SYMTAB) {
      if (symtab_index >= 0) refuse("more than one symbol table");
      symtab_index = static_cast<int>(i);
    }
  if (symtab_index < 0) refuse("no symbol table");
  const Elf64_Shdr& symtab = sec[symtab_index];
  if (symtab.sh_link >= n) refuse("the symbol table names no string table");
  const Elf64_Shdr& strtab = sec[symtab.sh_link];
  const std::vector<Elf64_Sym> syms = elf.table<Elf64_Sym>(symtab);

  // Which sections are loaded, and where in their region.
  Layout layout;
  layout.region.assign(n, -1);
  layout.offset.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Elf64_Shdr& s = sec[i];
    if (!(s.sh_flags & SHF_ALLOC) || s.sh_type == SHT_X86_64_UNWIND) continue;
    if (s.sh_type == SHT_INIT_ARRAY || s.sh_type == SHT_FINI_ARRAY || s.sh_type == SHT_PREINIT_ARRAY)
      refuse("the object has constructors or destructors");
    if (s.sh_flags & SHF_TLS) refuse("the object has thread-local data");
    if (s.sh_type != SHT_PROGBITS && s.sh_type != SHT_NOBITS) continue;
    const int r = (s.sh_flags & SHF_EXECINSTR) ? Layout::Exec
                  : (s.sh_flags & SHF_WRITE)   ? Layout::Writable
                                               : Layout::ReadOnly;
    const std::size_t align = s.sh_addralign ? s.sh_addralign : 1;
    if (align & (align - 1)) refuse("a section's alignment is not a power of two");
    layout.offset[i] = round_up(layout.size[r], align);
    layout.size[r] = layout.offset[i] + s.sh_size;
    layout.region[i] = r;
  }

  // Relocation sections that apply to loaded sections, and the GOT slots and
  // stubs they need (per symbol, once).
  std::vector<std::size_t> relocation_sections;
  std::vector<std::int64_t> got_slot(syms.size(), -1), stub(syms.size(), -1);
  std::size_t got_count = 0, stub_count = 0;
  std::vector<std::vector<Elf64_Rela>> relas;
  for (std::size_t i = 0; i < n; ++i) {
    const Elf64_Shdr& s = sec[i];
    if (s.sh_type == SHT_REL) refuse("REL relocations (x86-64 objects use RELA)");
    if (s.sh_type != SHT_RELA) continue;
    if (s.sh_info >= n) refuse("a relocation section names no section");
    if (layout.region[s.sh_info] < 0) continue;  // unwind tables, debug information
    if (static_cast<int>(s.sh_link) != symtab_index) refuse("relocations against another symbol table");
    relocation_sections.push_back(i);
    relas.push_back(elf.table<Elf64_Rela>(s));
    for (const Elf64_Rela& r : relas.back()) {
      const std::uint32_t type = ELF64_R_TYPE(r.r_info);
      const std::size_t sym = ELF64_R_SYM(r.r_info);
      if (sym >= syms.size()) refuse("a relocation names a symbol outside the table");
      if (is_got_relocation(type) || (type == R_X86_64_PLT32 && !defined(syms[sym]))) {
        if (got_slot[sym] < 0) got_slot[sym] = static_cast<std::int64_t>(got_count++);
      }
      if (type == R_X86_64_PLT32 && !defined(syms[sym]) && stub[sym] < 0)
        stub[sym] = static_cast<std::int64_t>(stub_count++);
    }
  }
  layout.stubs = round_up(layout.size[Layout::Exec], 16);
  layout.size[Layout::Exec] = layout.stubs + stub_count * kStubBytes;
  layout.got = round_up(layout.size[Layout::ReadOnly], 8);
  layout.size[Layout::ReadOnly] = layout.got + got_count * 8;

  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (int r = 0; r < 3; ++r) {
    layout.start[r] = layout.total;
    layout.total += round_up(layout.size[r], page);
  }
  if (layout.total == 0) refuse("the object loads nothing");

  void* mapped = mmap(nullptr, layout.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) refuse("mmap of " + std::to_string(layout.total) + " bytes failed");
  std::unique_ptr<LoadedObject> image(new LoadedObject);
  image->base_ = mapped;
  image->bytes_ = layout.total;
  char* base = static_cast<char*>(mapped);

  auto section_address = [&](std::size_t i) { return base + layout.start[layout.region[i]] + layout.offset[i]; };
  for (std::size_t i = 0; i < n; ++i)
    if (layout.region[i] >= 0 && sec[i].sh_type == SHT_PROGBITS)
      std::memcpy(section_address(i), elf.bytes(sec[i]), sec[i].sh_size);

  // Symbol addresses, resolved on first use.
  std::vector<std::uint64_t> address(syms.size(), 0);
  std::vector<bool> resolved(syms.size(), false);
  auto symbol_address = [&](std::size_t i) -> std::uint64_t {
    if (resolved[i]) return address[i];
    const Elf64_Sym& s = syms[i];
    std::uint64_t a = 0;
    if (s.st_shndx == SHN_UNDEF) {
      const std::string name(elf.string(strtab, s.st_name));
      if (name.empty()) refuse("a relocation against the null symbol");
      void* p = dlsym(RTLD_DEFAULT, name.c_str());
      if (!p && ELF64_ST_BIND(s.st_info) != STB_WEAK) refuse("the process has no symbol '" + name + "'");
      a = reinterpret_cast<std::uint64_t>(p);
    } else if (s.st_shndx == SHN_ABS) {
      a = s.st_value;
    } else if (s.st_shndx >= SHN_LORESERVE) {
      refuse("a symbol in a special section (common or extended index)");
    } else if (s.st_shndx >= n || layout.region[s.st_shndx] < 0) {
      refuse("a relocation against a section that is not loaded");
    } else {
      a = reinterpret_cast<std::uint64_t>(section_address(s.st_shndx)) + s.st_value;
    }
    address[i] = a;
    resolved[i] = true;
    return a;
  };

  char* got = base + layout.start[Layout::ReadOnly] + layout.got;
  char* stubs = base + layout.start[Layout::Exec] + layout.stubs;
  for (std::size_t i = 0; i < syms.size(); ++i) {
    if (got_slot[i] >= 0) {
      const std::uint64_t a = symbol_address(i);
      std::memcpy(got + got_slot[i] * 8, &a, 8);
    }
    if (stub[i] >= 0) {
      char* at = stubs + stub[i] * kStubBytes;
      const std::int64_t disp = (got + got_slot[i] * 8) - (at + 6);
      const auto d32 = static_cast<std::int32_t>(disp);
      const unsigned char code[kStubBytes] = {0xFF, 0x25, 0, 0, 0, 0, 0xCC, 0xCC};
      std::memcpy(at, code, kStubBytes);
      std::memcpy(at + 2, &d32, 4);
    }
  }

  auto put32 = [](char* at, std::int64_t value, bool is_signed, const char* kind) {
    const bool fits = is_signed ? value >= INT32_MIN && value <= INT32_MAX : value >= 0 && value <= UINT32_MAX;
    if (!fits) refuse(std::string("a ") + kind + " relocation is out of range");
    const auto v = static_cast<std::uint32_t>(value);
    std::memcpy(at, &v, 4);
  };

  for (std::size_t k = 0; k < relocation_sections.size(); ++k) {
    const Elf64_Shdr& rs = sec[relocation_sections[k]];
    const std::size_t target = rs.sh_info;
    char* target_base = section_address(target);
    const std::uint64_t target_size = sec[target].sh_size;
    for (const Elf64_Rela& r : relas[k]) {
      const std::uint32_t type = ELF64_R_TYPE(r.r_info);
      const std::size_t sym = ELF64_R_SYM(r.r_info);
      const std::uint64_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
      if (type == R_X86_64_NONE) continue;
      if (r.r_offset > target_size || target_size - r.r_offset < width) refuse("a relocation lies outside its section");
      char* at = target_base + r.r_offset;
      const auto p = static_cast<std::int64_t>(reinterpret_cast<std::uint64_t>(at));
      const std::int64_t a = r.r_addend;
      switch (type) {
        case R_X86_64_64: {
          const std::uint64_t v = symbol_address(sym) + static_cast<std::uint64_t>(a);
          std::memcpy(at, &v, 8);
          break;
        }
        case R_X86_64_PC64: {
          const std::int64_t v = static_cast<std::int64_t>(symbol_address(sym)) + a - p;
          std::memcpy(at, &v, 8);
          break;
        }
        case R_X86_64_PC32: put32(at, static_cast<std::int64_t>(symbol_address(sym)) + a - p, true, "PC32"); break;
        case R_X86_64_PLT32: {
          const std::int64_t s = stub[sym] >= 0 ? reinterpret_cast<std::int64_t>(stubs + stub[sym] * kStubBytes)
                                                : static_cast<std::int64_t>(symbol_address(sym));
          put32(at, s + a - p, true, "PLT32");
          break;
        }
        case R_X86_64_GOTPCREL:
        case R_X86_64_GOTPCRELX:
        case R_X86_64_REX_GOTPCRELX:
          put32(at, reinterpret_cast<std::int64_t>(got + got_slot[sym] * 8) + a - p, true, "GOTPCREL");
          break;
        case R_X86_64_32: put32(at, static_cast<std::int64_t>(symbol_address(sym)) + a, false, "32"); break;
        case R_X86_64_32S: put32(at, static_cast<std::int64_t>(symbol_address(sym)) + a, true, "32S"); break;
        default: refuse("relocation type " + std::to_string(type) + " is not supported");
      }
    }
  }

  // The entry point: a symbol the object defines in a loaded section.
  for (std::size_t i = 1; i < syms.size(); ++i) {
    const Elf64_Sym& s = syms[i];
    if (!defined(s) || s.st_shndx >= n || elf.string(strtab, s.st_name) != entry) continue;
    image->entry_ = reinterpret_cast<void*>(symbol_address(i));
    break;
  }
  if (!image->entry_) refuse("the object does not define '" + std::string(entry) + "'");

  for (int r : {Layout::Exec, Layout::ReadOnly}) {
    const std::size_t bytes = round_up(layout.size[r], page);
    const int prot = r == Layout::Exec ? PROT_READ | PROT_EXEC : PROT_READ;
    if (bytes && mprotect(base + layout.start[r], bytes, prot) != 0) refuse("mprotect failed");
  }
  return image;
}

LoadedObject::~LoadedObject() {
  if (base_) munmap(base_, bytes_);
}

#else  // not x86-64 Linux: the Jit loads every object through LLJIT

bool LoadedObject::host_supported() { return false; }

std::unique_ptr<LoadedObject> LoadedObject::load(std::string_view, std::string_view) {
  throw BackendError("object loader: not available on this host");
}

LoadedObject::~LoadedObject() = default;

#endif

}  // namespace tack::backends::cpu
