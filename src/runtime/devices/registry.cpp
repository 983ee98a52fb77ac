// The devices made so far: one shared device per name for tack::device()
// without options, every live device for tack::sync(), and the name a device
// call resolves to. The list of backends is defined in src/api (backend_list.cpp).
#include "runtime/devices/registry.hpp"

#include "ir/check.hpp"
#include "runtime/memory/access.hpp"
#include "support/env.hpp"

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

std::shared_ptr<Backend> default_backend() { return detail::Access::backend(device()); }

std::string device_name(std::string_view name, const char** source) {
  if (!name.empty()) return std::string(name);
  std::optional<std::string> env = support::env_text("TACK_DEVICE");
  if (source) *source = env ? "TACK_DEVICE" : "the default device";
  return env ? std::move(*env) : std::string(kDefaultDevice);
}

const BackendDescription* find_built_backend(std::string_view name) {
  const BackendDescription* d = find_backend_description(name);
  return d && d->create ? d : nullptr;
}

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
  return suggestion(wrong, candidates);
}

std::string join_names(const std::vector<std::string>& names) { return joined(names); }

std::shared_ptr<Backend> open_backend(const BackendDescription& description, const DeviceOptions& options) {
  TACK_CHECK(description.create);
  std::lock_guard lock(g_mutex);
  if (options.empty()) {
    for (const auto& [n, b] : g_shared)
      if (n == description.name) return b;
  }
  std::shared_ptr<Backend> backend = description.create(options);
  if (options.empty()) g_shared.emplace_back(description.name, backend);
  std::erase_if(g_live, [](const auto& w) { return w.expired(); });
  g_live.push_back(backend);
  return backend;
}

std::vector<std::shared_ptr<Backend>> live_backends() {
  std::vector<std::shared_ptr<Backend>> live;
  std::lock_guard lock(g_mutex);
  for (const auto& w : g_live)
    if (auto b = w.lock()) live.push_back(b);
  return live;
}

}  // namespace tack::runtime
