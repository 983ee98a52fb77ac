// NVRTC compilation of generated CUDA C.
#include "backends/cuda/nvrtc_compile.hpp"

#include "drivers/rtc_api.hpp"
#include "runtime/diagnostics/driver_errors.hpp"
#include "runtime/diagnostics/warnings.hpp"

#include <tack/error.hpp>

#include <mutex>
#include <vector>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace {

const drivers::RtcApi& api() {
  std::string why;
  const drivers::RtcApi* a = drivers::nvrtc(&why);
  if (!a) throw BackendUnavailable("cuda: " + why);
  return *a;
}

void warn_if_old(const drivers::RtcApi& a) {
  static std::once_flag once;
  std::call_once(once, [&] {
    int major = 0, minor = 0;
    if (a.version(&major, &minor) != 0) return;
    const std::string warning = nvrtc_version_warning(major, minor, a.library);
    if (!warning.empty()) runtime::warn(warning);
  });
}

}  // namespace

std::string nvrtc_version_warning(int major, int minor, const std::string& library) {
  if (major >= 13) return "";
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " (" + library +
         ") is older than 13: NVRTC 12.0 miscompiled Tack's lattice Boltzmann example; use CUDA 13";
}

std::array<int, 2> nvrtc_version() {
  const drivers::RtcApi& a = api();
  int major = 0, minor = 0;
  if (a.version(&major, &minor) != 0) throw BackendError("cuda: nvrtcVersion failed");
  return {major, minor};
}

std::string compile_ptx(const std::string& source, const std::string& entry, bool fp_contract,
                        std::initializer_list<const char*> extra) {
  const drivers::RtcApi& a = api();
  warn_if_old(a);
  KeepThreadLocale keep;
  const auto& base = nvrtc_options(fp_contract);
  std::vector<const char*> options(base.begin(), base.end());
  options.insert(options.end(), extra.begin(), extra.end());
  const std::string name = entry + ".cu";
  std::vector<char> ptx = runtime::compiled_or_raise(drivers::rtc_compile(a, source, name, options), a, name, source);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return std::string(ptx.begin(), ptx.end());
}

}  // namespace tack::backends::cuda
