// The backends built into this library, and the devices made from them.
// The list itself is defined in src/api: runtime knows no backend.
#pragma once

#include "runtime/backend.hpp"

#include <tack/device.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

struct BackendFactory {
  std::string name;
  std::vector<std::string> options;  // option names this backend accepts
  std::function<std::shared_ptr<Backend>(const DeviceOptions&)> create;
  // Optional: starts, in the background, start-up work the first compile would do.
  std::function<void()> warm_up = {};
};

// Every backend built in; defined by the top layer (src/api/backend_list.cpp), which knows them.
const std::vector<BackendFactory>& backend_factories();
// The device of that backend with these options: the shared one for no options, else a new one;
// remembered for live_backends(). The caller has checked the options.
std::shared_ptr<Backend> open_backend(const BackendFactory& factory, const DeviceOptions& options);
std::shared_ptr<Backend> default_backend();
// The device tack::device(name) makes: name, else TACK_DEVICE, else the default;
// *source (when given) says which of the last two it was.
std::string device_name(std::string_view name, const char** source);
// Runs the warm_up of the backend device_name(name) names, if it has one (unknown names are ignored).
void warm_up(std::string_view name);
// Every device made so far that is still alive (what tack::sync() waits for).
std::vector<std::shared_ptr<Backend>> live_backends();
// " (did you mean 'x'?)" for the closest candidate, or "".
std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates);
// "a, b, c", or "none".
std::string join_names(const std::vector<std::string>& names);

}  // namespace tack::runtime
