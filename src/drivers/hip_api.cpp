// Loading the HIP runtime, resolving its entry points, naming its errors, and
// refusing a ROCm whose code object manager would abort the process.
//
// Why the refusal (found on this project's build machine, Debian's ROCm 5.2):
// libamdhip64 loads libamd_comgr (the code object manager, with clang inside)
// at the first hipRTC compile, and on a machine with a GPU at device setup.
// Debian's comgr links the system's shared libLLVM-15.so.1 instead of carrying
// its own LLVM, and PoCL (the opencl backend's usual driver) brings
// libclang-cpp.so.15 over the same libLLVM-15. Both register clang's command
// line options in that one LLVM, so whichever loads second aborts the process:
// "Option 'emptyline-comment-coverage' registered more than once" (comgr after
// PoCL) or "'limited-coverage-experimental' registered more than once" (PoCL
// after comgr). Tack's own LLVM 19 is not involved: with only the cpu backend
// loaded, hipRTC compiles. RTLD_DEEPBIND on libamdhip64 does not help (comgr
// is dlopen'd by libamdhip64, and the clash is inside the one libLLVM-15).
// dlmopen(LM_ID_NEWLM) does avoid it, but gives Tack a HIP runtime of its own,
// separate from the application's (hipMalloc pointers and streams of one are
// meaningless to the other, and two runtimes cannot both acquire a GPU), so
// Tack does not use it. Instead, before anything can load comgr, Tack reads
// the DT_NEEDED entries of the comgr beside libamdhip64 and refuses the hip
// backend (BackendUnavailable, with this reason) when comgr links a shared
// libLLVM or libclang-cpp. TACK_HIP_ALLOW_SHARED_LLVM=1 overrides the refusal
// in a process known to load no other clang (no PoCL).
#include "drivers/hip_api.hpp"

#include "drivers/loaded_driver.hpp"
#include "support/env.hpp"
#include "support/loaded_file.hpp"

#include <elf.h>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace tack::drivers::hip {
namespace {

using Loaded = LoadedDriver<Api>;

void resolve_required(DynamicLibrary& lib, Api& api) { TACK_HIP_ENTRY_POINTS(TACK_DRIVER_ENTRY_RESOLVE) }
void resolve_optional(DynamicLibrary& lib, Api& api) { TACK_HIP_OPTIONAL_ENTRY_POINTS(TACK_DRIVER_ENTRY_RESOLVE) }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The comgr libamdhip64 would load: beside it (ROCm's RUNPATH is $ORIGIN; Debian puts both in one folder),
// looked for by the file's own folder and the folder of its resolved symlinks. Empty when none is there.
std::string comgr_beside(void* symbol) {
  const std::string file = support::loaded_file_of(symbol);
  if (file.empty()) return "";
  std::vector<std::string> dirs = {directory_of(file)};
  char resolved[PATH_MAX];
  if (realpath(file.c_str(), resolved)) dirs.push_back(directory_of(resolved));
  for (const std::string& dir : dirs)
    for (const char* name : {"libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so"}) {
      const std::string path = dir + "/" + name;
      if (std::ifstream(path).good()) return path;
    }
  return "";
}

void load(Loaded& out) {
  const std::optional<std::string> forced = support::env_text("TACK_HIP_LIBRARY");
  const bool opened =
      forced ? out.lib.open({forced->c_str()})
             : out.lib.open({"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"});
  if (!opened) {
    out.failure = "the HIP runtime could not be loaded (" + out.lib.why() + ")";
    return;
  }
  out.api.library = out.lib.name();
  resolve_required(out.lib, out.api);
  if (!out.lib.missing().empty()) {
    out.failure = out.lib.name() + " lacks " + out.lib.missing() + " (Tack needs ROCm 5.2 or newer)";
    return;
  }
  // Optional: absent before ROCm 6 (then the disk cache is off, having no architecture name to key on).
  resolve_optional(out.lib, out.api);
  // Asked before hipInit, which needs no device and loads no compiler.
  if (out.api.hipRuntimeGetVersion(&out.api.runtime_version) != hipSuccess) out.api.runtime_version = 0;
  const RuntimeVersion v = split_runtime_version(out.api.runtime_version);
  if (v.major < 5) {
    out.failure = out.lib.name() + " is HIP " + std::to_string(v.major) + "." + std::to_string(v.minor) +
                  "; Tack needs ROCm 5.2 or newer (the device attribute numbers changed in 5.0)";
    return;
  }
  if (!support::env_flag("TACK_HIP_ALLOW_SHARED_LLVM")) {
    const std::string comgr = comgr_beside(reinterpret_cast<void*>(out.api.hipInit));
    if (!comgr.empty() && links_shared_llvm(elf_needed(comgr))) {
      std::string shared;
      for (const std::string& n : elf_needed(comgr))
        if (n.rfind("libLLVM", 0) == 0 || n.rfind("libclang", 0) == 0) shared += (shared.empty() ? "" : ", ") + n;
      out.failure = comgr + " (ROCm " + std::to_string(v.major) + "." + std::to_string(v.minor) +
                    "'s code object manager) links the shared " + shared +
                    ", which other libraries in the process may also use (PoCL's libclang-cpp): both register "
                    "clang's options there and the process aborts (\"Option ... registered more than once\"). "
                    "Use AMD's ROCm packages, whose comgr carries its own LLVM, or set "
                    "TACK_HIP_ALLOW_SHARED_LLVM=1 in a process that loads no other clang";
      return;
    }
  }
  const hipError_t init = out.api.hipInit(0);
  if (init == hipErrorNoDevice || init == hipErrorInvalidDevice) {
    out.failure = "the HIP runtime (" + out.lib.name() + ") reports no device (hipInit: " +
                  std::string(out.api.hipGetErrorName(init) ? out.api.hipGetErrorName(init) : "?") + ")";
  } else if (init != hipSuccess) {
    const char* name = out.api.hipGetErrorName(init);
    out.failure = "hipInit failed: " + std::string(name ? name : std::to_string(init));
  }
}

}  // namespace

const Api* load(std::string* why) { return load_once<Api, load>().usable(why); }

RuntimeVersion split_runtime_version(int version) { return {version / 10000000, version / 100000 % 100}; }

bool has_integer_expression_miscompile(RuntimeVersion v) { return v.major == 7 && (v.minor == 0 || v.minor == 1); }

std::vector<std::string> elf_needed(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<std::string> out;
  Elf64_Ehdr eh{};
  if (!f.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return out;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  f.seekg(static_cast<std::streamoff>(eh.e_shoff));
  if (!f.read(reinterpret_cast<char*>(sections.data()),
              static_cast<std::streamsize>(sections.size() * sizeof(Elf64_Shdr))))
    return out;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_DYNAMIC || s.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[s.sh_link];
    std::string strings(strtab.sh_size, '\0');
    f.seekg(static_cast<std::streamoff>(strtab.sh_offset));
    if (!f.read(strings.data(), static_cast<std::streamsize>(strings.size()))) return out;
    std::vector<Elf64_Dyn> dyn(s.sh_size / sizeof(Elf64_Dyn));
    f.seekg(static_cast<std::streamoff>(s.sh_offset));
    if (!f.read(reinterpret_cast<char*>(dyn.data()), static_cast<std::streamsize>(dyn.size() * sizeof(Elf64_Dyn))))
      return out;
    for (const Elf64_Dyn& d : dyn) {
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED && d.d_un.d_val < strings.size()) out.emplace_back(strings.c_str() + d.d_un.d_val);
    }
  }
  return out;
}

bool links_shared_llvm(const std::vector<std::string>& needed) {
  for (const std::string& n : needed)
    if (n.rfind("libLLVM", 0) == 0 || n.rfind("libclang-cpp", 0) == 0) return true;
  return false;
}

std::string error_text(hipError_t code) {
  const Api* a = load(nullptr);
  const char* name = a ? a->hipGetErrorName(code) : nullptr;
  const char* text = a ? a->hipGetErrorString(code) : nullptr;
  std::string out = name ? name : "hipError_t " + std::to_string(code);
  if (text) out += std::string(" (") + text + ")";
  return out;
}

std::optional<Failure> failure(hipError_t code, const char* call) {
  if (code == hipSuccess) return std::nullopt;
  return Failure{call, code, error_text(code)};
}

}  // namespace tack::drivers::hip
