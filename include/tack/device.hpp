// Devices: where arrays live and kernels run.
#pragma once

#include <tack/dtype.hpp>

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tack {

class Array;
namespace runtime {
class Backend;
}
namespace detail {
struct Access;  // Tack's own reach into the classes below (src/runtime/memory/access.hpp); not for users
}

// What a backend can do; callers read these rather than probing. Derived
// entries (supports_f64, supported_atomic_dtypes) are computed from the others
// when the backend is made, so they cannot disagree.
struct Capabilities {
  std::string name;          // "interp", "cpu", "cuda", ...
  std::string display_name;  // "Interpreter", "CPU", "CUDA", ...
  std::vector<DType> supported_dtypes;
  bool supports_f64 = false;
  bool supports_device_reductions = false;
  bool supports_workgroups = false;
  std::vector<DType> supported_atomic_dtypes;
  std::vector<std::string> device_memory_spaces;
  std::vector<std::string> device_options;  // the option names tack::device() accepts
  bool supports_exportable_memory = false;  // Device::empty_exportable, Array::export_memory
  bool supports_wrapped_memory = false;     // tack::array_from_ptr
  std::string dlpack_refusal_note;

  bool supports(DType t) const;
  bool supports_atomic(DType t) const;
};

using OptionValue = std::variant<bool, std::int64_t, double, std::string>;
using DeviceOptions = std::map<std::string, OptionValue, std::less<>>;

class Device {
 public:
  Device() = default;
  explicit Device(std::shared_ptr<runtime::Backend> backend);

  const std::string& name() const;
  const Capabilities& capabilities() const;

  // A copy of host data as a device array; shape defaults to {data.size()}.
  template <Arithmetic T>
  Array from_host(std::span<const T> data, std::vector<std::int64_t> shape = {}) const;
  template <Arithmetic T>
  Array from_host(const std::vector<T>& data, std::vector<std::int64_t> shape = {}) const;
  Array zeros(DType dtype, std::vector<std::int64_t> shape) const;
  Array empty(DType dtype, std::vector<std::int64_t> shape) const;  // contents unspecified
  // In one of capabilities().device_memory_spaces (the first is where the overloads above allocate): e.g.
  // "cuda_pinned" (page-locked host memory the device maps) or "cuda_managed" (memory the driver migrates).
  // InvalidArgument for a space the device does not list.
  Array zeros(DType dtype, std::vector<std::int64_t> shape, std::string_view memory_space) const;
  Array empty(DType dtype, std::vector<std::int64_t> shape, std::string_view memory_space) const;
  // An array in memory that Array::export_memory() hands out without a copy
  // (CUDA virtual memory); contents unspecified. InvalidArgument where
  // capabilities().supports_exportable_memory is false.
  Array empty_exportable(DType dtype, std::vector<std::int64_t> shape) const;

  // Waits for everything queued on this device.
  void synchronize() const;
  // Ready once the launches queued on this device before this call have run;
  // the wait happens in one of Tack's tack-wait threads, and later launches are
  // not waited for. A launch's error arrives through the future.
  std::future<void> synchronize_async() const;

  bool operator==(const Device& o) const { return backend_ == o.backend_; }

 private:
  friend struct detail::Access;
  Array from_host_bytes(DType dtype, const void* data, std::size_t count, std::vector<std::int64_t> shape) const;
  std::shared_ptr<runtime::Backend> backend_;
};

// The device named `name` ("interp", later "cpu", "cuda", ...); an empty name
// means TACK_DEVICE, else the default. Unknown names and options are refused
// before anything is constructed. Without options, the same name gives the same
// device each time.
Device device(std::string_view name = {}, const DeviceOptions& options = {});

// The names of the backends built into this library, available or not.
std::vector<std::string> backend_names();

// Waits for everything queued on every device made so far.
void sync();
// sync() off the caller's thread: ready once the launches queued before this
// call on every live device have run (later ones are not waited for); the
// first launch error arrives through the future.
std::future<void> sync_async();

}  // namespace tack
