// tack::device(): name and option validation before anything is constructed,
// one shared device per name, and tack::sync() and sync_async() over every live
// device.
#include "runtime/registry.hpp"
#include "runtime/print_capture.hpp"

#include "runtime/async_wait.hpp"
#include "support/env.hpp"

#include "backends/cuda/cuda_backend.hpp"
#include "backends/hip/hip_backend.hpp"
#include "backends/interp/interp_backend.hpp"
#include "backends/level_zero/level_zero_backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#ifdef TACK_HAVE_METAL
#include "backends/metal/metal_backend.hpp"  // Apple platforms only
#endif
#ifdef TACK_HAVE_LLVM
#include "backends/cpu/cpu_backend.hpp"
#endif

#include <tack/error.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace tack::runtime {
namespace {

std::mutex g_mutex;
std::vector<std::pair<std::string, std::shared_ptr<Backend>>> g_shared;  // devices made without options
std::vector<std::weak_ptr<Backend>> g_live;

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(std::string_view wrong, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(wrong, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

#ifdef TACK_HAVE_LLVM
const char* kDefaultDevice = "cpu";
#else
const char* kDefaultDevice = "interp";  // a build without LLVM has no compiled CPU backend
#endif

}  // namespace

const std::vector<BackendFactory>& backend_factories() {
  static const std::vector<BackendFactory> factories = {
  // The option lists equal each backend's Capabilities::device_options.
#ifdef TACK_HAVE_LLVM
      {"cpu", {"num_threads"}, [](const DeviceOptions& o) { return make_cpu_backend(o); }, warm_up_cpu_backend},
#endif
      {"cuda", {"device"}, [](const DeviceOptions& o) { return make_cuda_backend(o); }},
      {"hip", {"device"}, [](const DeviceOptions& o) { return make_hip_backend(o); }},
      {"interp", {"lanes"}, [](const DeviceOptions& o) { return make_interp_backend(o); }},
      {"level_zero",
       {"external_context", "external_device", "external_driver"},
       [](const DeviceOptions& o) { return make_level_zero_backend(o); }},
#ifdef TACK_HAVE_METAL
      {"metal", {}, [](const DeviceOptions& o) { return make_metal_backend(o); }},
#endif
      {"opencl", {"device"}, [](const DeviceOptions& o) { return make_opencl_backend(o); }},
  };
  return factories;
}

std::shared_ptr<Backend> default_backend() { return device().backend(); }

std::string device_name(std::string_view name, const char** source) {
  if (!name.empty()) return std::string(name);
  std::optional<std::string> env = support::env_text("TACK_DEVICE");
  if (source) *source = env ? "TACK_DEVICE" : "the default device";
  return env ? std::move(*env) : std::string(kDefaultDevice);
}

void warm_up(std::string_view name) {
  const std::string backend = device_name(name, nullptr);
  for (const auto& f : backend_factories())
    if (f.name == backend && f.warm_up) f.warm_up();
}

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
  return suggestion(wrong, candidates);
}

std::string join_names(const std::vector<std::string>& names) { return joined(names); }

}  // namespace tack::runtime

namespace tack {

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& f : runtime::backend_factories()) names.push_back(f.name);
  return names;
}

Device device(std::string_view name, const DeviceOptions& options) {
  const char* source = "tack::device()";
  const std::string chosen = runtime::device_name(name, &source);
  const runtime::BackendFactory* factory = nullptr;
  for (const auto& f : runtime::backend_factories())
    if (f.name == chosen) factory = &f;
  if (!factory)
    throw InvalidArgument("unknown device '" + chosen + "' from " + source +
                          runtime::suggestion(chosen, backend_names()) +
                          "; the devices are: " + runtime::joined(backend_names()));
  for (const auto& [key, value] : options) {
    if (std::find(factory->options.begin(), factory->options.end(), key) == factory->options.end())
      throw InvalidArgument("device '" + chosen + "' has no option '" + key + "'" +
                            runtime::suggestion(key, factory->options) +
                            "; its options are: " + runtime::joined(factory->options));
  }
  std::lock_guard lock(runtime::g_mutex);
  if (options.empty()) {
    for (const auto& [n, b] : runtime::g_shared)
      if (n == chosen) return Device(b);
  }
  std::shared_ptr<runtime::Backend> backend = factory->create(options);
  if (options.empty()) runtime::g_shared.emplace_back(chosen, backend);
  std::erase_if(runtime::g_live, [](const auto& w) { return w.expired(); });
  runtime::g_live.push_back(backend);
  return Device(backend);
}

namespace runtime {
std::vector<std::shared_ptr<Backend>> live_backends() {
  std::vector<std::shared_ptr<Backend>> live;
  std::lock_guard lock(g_mutex);
  for (const auto& w : g_live)
    if (auto b = w.lock()) live.push_back(b);
  return live;
}
}  // namespace runtime

void sync() {
  runtime::flush_prints();
  for (const auto& b : runtime::live_backends()) b->synchronize();
}

std::future<void> sync_async() { return runtime::wait_async(runtime::live_backends()); }

}  // namespace tack
