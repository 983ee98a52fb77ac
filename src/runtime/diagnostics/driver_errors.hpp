// The edge where the driver layer's reports become Tack errors: a table that
// could not be loaded is a BackendUnavailable naming why, a failed call a
// BackendError "<prefix><call> failed: <text>" (docs/errors.md). The backends
// call these through their own small wrappers (backends/<name>/<name>_driver.hpp),
// so every call stays checked and named while drivers/ stays free of tack::Error.
#pragma once

#include "drivers/failure.hpp"
#include "drivers/rtc_api.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

[[noreturn]] void raise_unavailable(std::string_view prefix, const std::string& why);

// Throws BackendError "<prefix><call> failed: <text>" when `failure` holds one.
[[noreturn]] void raise_failure(const drivers::Failure& failure, std::string_view prefix);
inline void raise_if_failed(const std::optional<drivers::Failure>& failure, std::string_view prefix) {
  if (failure) raise_failure(*failure, prefix);
}

// The table a driver's load(why) gives, or BackendUnavailable "<prefix><why>".
// A loaded table costs one call and no allocation (the launch path reads it).
template <class Api>
const Api& usable(const Api* (*load)(std::string* why), std::string_view prefix) {
  if (const Api* api = load(nullptr)) return *api;
  std::string why;
  load(&why);
  raise_unavailable(prefix, why);
}

// What NVRTC or hipRTC made of a source, or a CompileError with the compiler's
// log and the source when it rejected it, a BackendError when a call failed.
std::vector<char> compiled_or_raise(drivers::RtcOutput output, const drivers::RtcApi& api, const std::string& name,
                                    const std::string& source);

}  // namespace tack::runtime
