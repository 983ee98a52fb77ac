// CUDA C to PTX with NVRTC (reference: CUDA, Compilation): exactly the options
// below, which the disk cache's target also names; no target architecture, so
// the driver JIT-compiles NVRTC's default virtual architecture at load.
#pragma once

#include "support/no_copy.hpp"

#include <locale.h>

#include <array>
#include <string>

namespace tack::backends::cuda {

// --ftz=false keeps denormals, --prec-div/--prec-sqrt give IEEE-rounded division and square root, --fmad=true
// permits contraction (the generator writes a product outside a sum as __fmul_rn/__dmul_rn, since NVRTC also fuses
// across statements), --extra-device-vectorization vectorizes more. --use_fast_math is never passed.
inline constexpr std::array<const char*, 5> kNvrtcOptions = {"--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                                                             "--fmad=true", "--extra-device-vectorization"};
// A kernel made with fp_contract off: the same with --fmad=false, so nothing fuses even where the generator
// (which then writes every product as __fmul_rn/__dmul_rn) would have let it.
inline constexpr std::array<const char*, 5> kNvrtcOptionsNoContract = {
    "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "--fmad=false", "--extra-device-vectorization"};

inline const std::array<const char*, 5>& nvrtc_options(bool fp_contract) {
  return fp_contract ? kNvrtcOptions : kNvrtcOptionsNoContract;
}

// NVRTC's version, e.g. {13, 0}; throws BackendUnavailable without NVRTC.
std::array<int, 2> nvrtc_version();

// The warning the first compile of a process gives for NVRTC major.minor loaded from `library`: empty from 13
// on (reference, CUDA: NVRTC 12.0 miscompiled the lattice Boltzmann example, and was not reduced to a kernel).
std::string nvrtc_version_warning(int major, int minor, const std::string& library);

// Restores the calling thread's locale (its own locale object, or the process's) when it goes out of scope:
// compile_ptx holds one over each compile, returning or throwing, since NVRTC 12 left the thread in "C".
class KeepThreadLocale : support::NoCopy {
 public:
  KeepThreadLocale() : saved_(uselocale(static_cast<locale_t>(0))) {}
  ~KeepThreadLocale() { uselocale(saved_); }

 private:
  locale_t saved_;  // the thread's locale object (or LC_GLOBAL_LOCALE), owned by whoever made it
};

// Compiles `source` (whose kernel is `entry`) to PTX with nvrtc_options(fp_contract),
// the kernel's ir::Kernel::fp_contract; extra options (tests pass an architecture)
// follow. Throws CompileError with NVRTC's log
// and the source, BackendUnavailable when NVRTC cannot be loaded. The first
// compile of the process warns when NVRTC is older than 13 (12.0 miscompiled
// the LBM example), and every compile restores the calling thread's locale,
// which NVRTC 12 left as "C".
std::string compile_ptx(const std::string& source, const std::string& entry, bool fp_contract,
                        std::initializer_list<const char*> extra = {});

}  // namespace tack::backends::cuda
