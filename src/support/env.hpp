// Every TACK_* environment variable Tack reads, in one table, and the only way
// to read them. A name missing from the table does not compile, so the table
// (and docs/environment.md, which a unit test holds equal to it) cannot fall
// behind the code. The lowest layer: it includes nothing of Tack's and throws
// nothing; a reader that refuses a malformed value raises its own error.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tack::support {

enum class EnvKind {
  Flag,  // a boolean: read with env_flag
  Text,  // anything else, parsed by its reader: read with env_text
};

struct EnvVariable {
  std::string_view name;
  EnvKind kind;
  // For a Flag, "on" or "off" (what unset or empty means); for a Text, what the
  // reader does when it is unset or empty, in words (the reader applies it).
  std::string_view fallback;
  std::string_view reader;  // the part of Tack that reads it
  std::string_view meaning;
};

// Sorted by name, as docs/environment.md lists them.
inline constexpr EnvVariable kEnvVariables[] = {
    {"TACK_CACHE", EnvKind::Flag, "on", "runtime (disk cache)", "the disk cache of compiled variants"},
    {"TACK_CACHE_DIR", EnvKind::Text, "`$XDG_CACHE_HOME/tack`, else `~/.cache/tack`", "runtime (disk cache)",
     "the disk cache's folder"},
    {"TACK_CACHE_MAX_BYTES", EnvKind::Text, "1G", "runtime (disk cache)",
     "the disk cache's size cap: bytes, or a number with K, M or G"},
    {"TACK_CPU_MALLOC", EnvKind::Flag, "off", "cpu backend",
     "keep freed memory in glibc's heap (arrays up to 32 MiB come from it, not from mmap), so a new array reuses "
     "pages already touched"},
    {"TACK_CPU_OBJECT_LOADER", EnvKind::Flag, "on", "cpu backend",
     "map compiled code with Tack's own loader where the host allows (x86-64 Linux); off: always through "
     "LLVM's LLJIT"},
    {"TACK_CPU_SIMD", EnvKind::Flag, "on", "cpu backend",
     "run a kernel's work-items in SIMD gangs where it allows (docs/cpu-codegen.md); off: one at a time"},
    {"TACK_CPU_THREADS", EnvKind::Text, "the physical core count", "cpu backend",
     "worker threads of the cpu backend's pool, 1 to 1024"},
    {"TACK_CUDA_DEVICE", EnvKind::Text, "0", "cuda backend", "which CUDA device, by ordinal"},
    {"TACK_CUDA_LIBRARY", EnvKind::Text, "`libcuda.so.1`", "cuda driver table",
     "a CUDA driver file to load instead (the tests load a stand-in)"},
    {"TACK_DEBUG", EnvKind::Flag, "off", "runtime (debug mode)",
     "checked array accesses; `tack::set_debug` overrides it"},
    {"TACK_DEVICE", EnvKind::Text, "`cpu` (`interp` in a build without LLVM)", "runtime (registry)",
     "the default device's name"},
    {"TACK_DUMP_IR", EnvKind::Flag, "off", "passes (pipeline)",
     "print the IR to stderr after each pass of the compile pipeline"},
    {"TACK_DUMP_MSL", EnvKind::Flag, "off", "metal backend",
     "write each compiled MSL source to `/tmp/tack_<entry>.msl`"},
    {"TACK_FP_CONTRACT", EnvKind::Text, "on", "runtime (kernels)",
     "`0`/`off`/`false`/`no`: kernels made without `fp_contract` never fuse a float product into a sum; "
     "`1`/`on`/`true`/`yes`: they may, as docs/semantics.md allows"},
    {"TACK_HIP_ALLOCATOR", EnvKind::Text, "`cache`", "hip backend",
     "`cache` (hipMalloc through Tack's buffer cache) or `pool` (hipMallocAsync)"},
    {"TACK_HIP_ALLOW_SHARED_LLVM", EnvKind::Flag, "off", "hip driver table",
     "load a ROCm whose code object manager links the shared libLLVM (aborts beside PoCL)"},
    {"TACK_HIP_LIBRARY", EnvKind::Text, "`libamdhip64.so`", "hip driver table", "a HIP runtime file to load instead"},
    {"TACK_LEVEL_ZERO_LIBRARY", EnvKind::Text, "`libze_loader.so.1`", "level_zero driver table",
     "a Level Zero loader file to load instead"},
    {"TACK_LOG", EnvKind::Text, "no log", "runtime (compile report)",
     "comma-separated topics; `compile` or `all`: one line per variant made, with the time of each phase"},
    {"TACK_OPENCL_DEVICE", EnvKind::Text, "the first GPU, else the first device", "opencl backend",
     "which OpenCL device: an index or a name"},
    {"TACK_OPENCL_LIBRARY", EnvKind::Text, "`libOpenCL.so.1`", "opencl driver table",
     "an OpenCL loader (or vendor library) to load instead"},
    {"TACK_PRINT_LINES", EnvKind::Text, "4096", "runtime (print capture)",
     "lines kept per launch by kernels that `print`, 0 to 16777216"},
    {"TACK_VERIFY", EnvKind::Flag, "off", "passes (pipeline)",
     "verify the IR after each pass of the compile pipeline in a release build (always on in a debug build)"},
    {"TACK_WAIT_TIMEOUT_S", EnvKind::Text, "0 (waits never time out)", "runtime (waits of the GPU backends)",
     "seconds a wait may take before it raises `tack::BackendError` naming the last kernel queued"},
};

// A name of kEnvVariables of the given kind, checked at compile time: reading a
// variable the table lacks, or a flag as text, is a build error.
template <EnvKind K>
class EnvName {
 public:
  consteval EnvName(const char* name) : index_(find(name)) {}  // NOLINT: implicit, so callers write the name
  const EnvVariable& variable() const { return kEnvVariables[index_]; }

 private:
  static consteval std::size_t find(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kEnvVariables); ++i)
      if (kEnvVariables[i].name == name) {
        if (kEnvVariables[i].kind != K) throw "read with the accessor of its kind (env_flag or env_text)";
        return i;
      }
    throw "not in kEnvVariables: add it there and to docs/environment.md";
  }
  std::size_t index_;
};

// The words of a boolean, in any case: "1", "true", "yes" and "on" are true, "0",
// "false", "no" and "off" false; anything else (null and empty too) is nullopt.
std::optional<bool> parse_env_bool(const char* value);

// The one flag parser: null or empty is `fallback`; the false words of
// parse_env_bool are false; anything else is true.
bool parse_env_flag(const char* value, bool fallback);

// The flag's value, its table fallback when unset or empty.
bool env_flag(EnvName<EnvKind::Flag> name);

// The value, or nullopt when unset or empty (the two mean the same everywhere).
std::optional<std::string> env_text(EnvName<EnvKind::Text> name);

// The whole table, for the docs test.
std::span<const EnvVariable> env_variables();

}  // namespace tack::support
