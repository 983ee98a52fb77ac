// The bodies of <tack/device.hpp>: tack::device(), backend_names(), sync() and
// sync_async() over the registry, a device's capabilities, and tack::Device's
// methods (its array constructors among them). A name and its options are
// checked before anything is constructed.
#include "runtime/devices/backend.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/devices/registry.hpp"
#include "runtime/kernels/print_capture.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/memory/new_array.hpp"
#include "runtime/waits/async_wait.hpp"

#include <tack/array.hpp>
#include <tack/device.hpp>
#include <tack/error.hpp>

#include <algorithm>

namespace tack {
namespace {
using runtime::check_dtype;
using runtime::checked_count;
using runtime::shape_text;

// In `memory_space`, or where the device allocates by default when it is empty.
Array make_array(const Device& dev, DType dtype, std::vector<std::int64_t> shape, bool zeroed, const char* what,
                 std::string_view memory_space = {}) {
  if (!detail::Access::backend(dev)) throw InvalidArgument(std::string(what) + " on an empty tack::Device");
  check_dtype(dev, dtype, what);
  const std::vector<std::string>& spaces = dev.capabilities().device_memory_spaces;
  if (!memory_space.empty() && std::find(spaces.begin(), spaces.end(), memory_space) == spaces.end()) {
    std::string listed;
    for (const std::string& s : spaces) listed += (listed.empty() ? "'" : ", '") + s + "'";
    throw InvalidArgument(std::string(what) + ": the " + dev.name() + " device has no memory space '" +
                          std::string(memory_space) + "' (" +
                          (listed.empty() ? std::string("it lists none") : "it has " + listed) + ")");
  }
  const std::int64_t count = checked_count(shape, dtype, what);
  const std::shared_ptr<runtime::Backend>& backend = detail::Access::backend(dev);
  const std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(dtype);
  const bool default_space = memory_space.empty() || memory_space == spaces.front();
  return runtime::new_array(
      backend, dtype, std::move(shape), count,
      default_space ? backend->allocate(bytes, zeroed) : backend->allocate_in(memory_space, bytes, zeroed));
}

}  // namespace

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
  if (!backend) {
    // A backend the table knows but this platform cannot have (metal off Apple) is unavailable, as a backend
    // without its driver is, rather than unknown: the same exception type on every platform.
    for (const runtime::BackendDescription* d : api::backend_descriptions())
      if (d->name == chosen)
        throw BackendUnavailable(chosen + ": the " + d->display_name + " backend is not in this build" +
                                 (chosen == "metal" ? " (Metal exists on Apple platforms only)" : ""));
  }
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

bool Capabilities::supports(DType t) const {
  return std::find(supported_dtypes.begin(), supported_dtypes.end(), t) != supported_dtypes.end();
}
bool Capabilities::supports_atomic(DType t) const {
  return std::find(supported_atomic_dtypes.begin(), supported_atomic_dtypes.end(), t) != supported_atomic_dtypes.end();
}

Device::Device(std::shared_ptr<runtime::Backend> backend) : backend_(std::move(backend)) {}

const std::string& Device::name() const {
  if (!backend_) throw InvalidArgument("name() of an empty tack::Device");
  return backend_->caps().name;
}
const Capabilities& Device::capabilities() const {
  if (!backend_) throw InvalidArgument("capabilities() of an empty tack::Device");
  return backend_->caps();
}
void Device::synchronize() const {
  runtime::flush_prints();
  if (backend_) backend_->synchronize();
}

Array Device::from_host_bytes(DType dtype, const void* data, std::size_t count, std::vector<std::int64_t> shape) const {
  if (shape.empty()) shape = {static_cast<std::int64_t>(count)};
  std::int64_t n = checked_count(shape, dtype, "from_host");
  if (n != static_cast<std::int64_t>(count))
    throw InvalidArgument("from_host: the host buffer holds " + std::to_string(count) + " elements but shape " +
                          shape_text(shape) + " needs " + std::to_string(n));
  Array a = make_array(*this, dtype, std::move(shape), false, "from_host");
  if (count) detail::Access::storage(a)->buffer->write(0, data, count * dtype_size(dtype));
  return a;
}

Array Device::zeros(DType dtype, std::vector<std::int64_t> shape) const {
  return make_array(*this, dtype, std::move(shape), true, "zeros");
}
Array Device::empty(DType dtype, std::vector<std::int64_t> shape) const {
  return make_array(*this, dtype, std::move(shape), false, "empty");
}
Array Device::zeros(DType dtype, std::vector<std::int64_t> shape, std::string_view memory_space) const {
  return make_array(*this, dtype, std::move(shape), true, "zeros", memory_space);
}
Array Device::empty(DType dtype, std::vector<std::int64_t> shape, std::string_view memory_space) const {
  return make_array(*this, dtype, std::move(shape), false, "empty", memory_space);
}

Array Device::empty_exportable(DType dtype, std::vector<std::int64_t> shape) const {
  if (!backend_) throw InvalidArgument("empty_exportable on an empty tack::Device");
  if (!capabilities().supports_exportable_memory)
    throw InvalidArgument("empty_exportable: the " + name() +
                          " device has no exportable memory (supports_exportable_memory is false)");
  runtime::check_dtype(*this, dtype, "empty_exportable");
  const std::int64_t count = runtime::checked_count(shape, dtype, "empty_exportable");
  return runtime::new_array(backend_, dtype, std::move(shape), count,
                            backend_->allocate_exportable(static_cast<std::size_t>(count) * dtype_size(dtype)));
}

std::future<void> Device::synchronize_async() const {
  if (!backend_) return runtime::wait_async({});
  return runtime::wait_async({backend_});
}

}  // namespace tack
