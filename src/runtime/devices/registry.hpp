// The devices made from the backends built into this library. The backends
// themselves are described in runtime/devices/backend_description.hpp, whose list is
// defined in src/api: runtime knows no backend.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/devices/backend_description.hpp"

#include <tack/device.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

// The description of the backend `name` if this library has its runtime (a create), else nullptr.
const BackendDescription* find_built_backend(std::string_view name);
// The device of that backend with these options: the shared one for no options, else a new one;
// remembered for live_backends(). The caller has checked the options.
std::shared_ptr<Backend> open_backend(const BackendDescription& backend, const DeviceOptions& options);
std::shared_ptr<Backend> default_backend();
// The device tack::device(name) makes: name, else TACK_DEVICE, else the default;
// *source (when given) says which of the last two it was.
std::string device_name(std::string_view name, const char** source);
// Every device made so far that is still alive (what tack::sync() waits for).
std::vector<std::shared_ptr<Backend>> live_backends();
// " (did you mean 'x'?)" for the closest candidate, or "".
std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates);
// "a, b, c", or "none".
std::string join_names(const std::vector<std::string>& names);

}  // namespace tack::runtime
