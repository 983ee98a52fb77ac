// tack::device(), tack::backend_names(), tack::sync() and sync_async(): the
// public device API over the registry. A name and its options are checked
// before anything is constructed.
#include "runtime/async_wait.hpp"
#include "runtime/print_capture.hpp"
#include "runtime/registry.hpp"

#include <tack/device.hpp>
#include <tack/error.hpp>

#include <algorithm>

namespace tack {

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const runtime::BackendDescription* d : api::backend_descriptions())
    if (d->create) names.push_back(d->name);
  return names;
}

Device device(std::string_view name, const DeviceOptions& options) {
  const char* source = "tack::device()";
  const std::string chosen = runtime::device_name(name, &source);
  const runtime::BackendDescription* backend = runtime::find_built_backend(chosen);
  if (!backend)
    throw InvalidArgument("unknown device '" + chosen + "' from " + source +
                          runtime::did_you_mean(chosen, backend_names()) +
                          "; the devices are: " + runtime::join_names(backend_names()));
  for (const auto& [key, value] : options) {
    if (std::find(backend->options.begin(), backend->options.end(), key) == backend->options.end())
      throw InvalidArgument("device '" + chosen + "' has no option '" + key + "'" +
                            runtime::did_you_mean(key, backend->options) +
                            "; its options are: " + runtime::join_names(backend->options));
  }
  return Device(runtime::open_backend(*backend, options));
}

void sync() {
  runtime::flush_prints();
  for (const auto& b : runtime::live_backends()) b->synchronize();
}

std::future<void> sync_async() { return runtime::wait_async(runtime::live_backends()); }

}  // namespace tack
