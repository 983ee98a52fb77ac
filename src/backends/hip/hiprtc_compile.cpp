// hipRTC compilation of generated HIP C.
#include "backends/hip/hiprtc_compile.hpp"

#include "drivers/rtc_api.hpp"
#include "runtime/diagnostics/driver_errors.hpp"

#include <tack/error.hpp>

namespace tack::backends::hip {
using namespace tack::runtime;

std::vector<char> compile_code_object(const std::string& source, const std::string& entry, bool fp_contract,
                                      std::initializer_list<const char*> extra) {
  std::string why;
  const drivers::RtcApi* a = drivers::hiprtc(&why);
  if (!a) throw BackendUnavailable("hip: " + why);
  const auto& base = hiprtc_options(fp_contract);
  std::vector<const char*> options(base.begin(), base.end());
  options.insert(options.end(), extra.begin(), extra.end());
  const std::string name = entry + ".hip";
  return runtime::compiled_or_raise(drivers::rtc_compile(*a, source, name, options), *a, name, source);
}

}  // namespace tack::backends::hip
