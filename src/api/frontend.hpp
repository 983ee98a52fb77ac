// The one door of a front end in another language into the core: what the
// Python bindings (python/src, tack._core) need beyond the public headers. A
// C++ program gets these through templates (Device::from_host<T>, tack::kernel
// over a lambda, Array::sum<T>); a binding holds a dtype and a parameter list
// at run time, and traces a body written in its own language.
//
// Only public types cross this door (the kernel language's lang::Value and
// lang::Array are the tracing API's own, from <tack/lang.hpp>); the runtime's
// objects stay behind functions, so the bindings depend on none of its headers.
// scripts/check_layers.py holds python/src to this header and <tack/...>.
#pragma once

#include <tack/tack.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tack::api {

// ---- Arrays and devices by run-time dtype ----

// A new array of `shape` holding a copy of `count` elements of dtype `dtype` at `data`.
Array from_host(const Device& d, DType dtype, const void* data, std::size_t count, std::vector<std::int64_t> shape);
// Copies elements [start, start + count) of the flat array to `out` (the array's dtype); waits.
void read(const Array& a, std::int64_t start, std::int64_t count, void* out);
// Sets every element to the one element of dtype `from` at `value`, converted as cast() does.
void fill(Array& a, DType from, const void* value);
// Sum, min or max of every element, written to `out` as dtype `as` (the rules of Array::sum).
void reduce(const Array& a, detail::ReduceOp op, DType as, void* out);

// then(error or nullptr) once the launches queued so far have run: on the array's device, on
// the device, or on every live device. It runs in one of Tack's tack-wait threads (or inline).
using WhenDone = std::function<void(std::exception_ptr)>;
void after_queued(const Array& a, WhenDone then);
void after_queued(const Device& d, WhenDone then);
void after_all_queued(WhenDone then);

// The same for every Device object of one device (what Device::operator== compares).
const void* device_identity(const Device& d);

// ---- Kernels traced by a front end ----

// The most parameters a kernel takes (runtime/kernels/signature.hpp's limit; frontend.cpp checks they agree).
inline constexpr int kMaxKernelParams = 32;

// A kernel whose body is written in the front end's language: `trace` replays it as calls
// of the tracing API (<tack/lang.hpp>), with the parameters made from `params` in order.
struct KernelDefinition {
  std::string name;
  std::vector<detail::ParamSpec> params;
  std::vector<std::string> param_names;  // for keyword arguments and messages; may be empty
  std::string file;                      // where the kernel is defined, for messages
  int line = 0;
  std::optional<bool> fp_contract;  // as KernelOptions::fp_contract
  std::function<void()> trace;      // called at the first call and at retrace(), maybe on another thread
};
// Traced at first use, as tack::kernel's kernels are. While `trace` runs, no front-end
// location (set_location) is in force unless the trace sets one.
Kernel make_kernel(KernelDefinition definition);

// What the call path reads of a kernel: its name and parameters as declared.
struct KernelSignature {
  const std::string& name;
  std::span<const detail::ParamSpec> params;
  std::span<const std::string> param_names;  // empty for a kernel written in C++
};
KernelSignature signature(const Kernel& k);

// The same for every copy of one kernel; `watch` expires when the last copy is gone.
const void* kernel_identity(const Kernel& k);
std::weak_ptr<const void> watch(const Kernel& k);
// Traces the kernel again at its next use (a value its trace read has changed).
void retrace(const Kernel& k);

// ---- Tracing ----

// Whether a kernel is being traced on this thread (the kernel language means something only then).
bool tracing();
// The front end's source location for what it traces next; nullopt clears it.
void set_location(const std::optional<std::string>& file, int line);
// A value as a condition: itself when it is a comparison, logical or classification result
// or already typed bool, else v != 0 (as Python's bool() of a number).
lang::Value truth_value(const lang::Value& v);
// A scalar's bits (as KernelArg::bits holds them) converted from dtype `from` to `to` as cast() converts.
std::uint64_t cast_bits(DType from, DType to, std::uint64_t bits);

}  // namespace tack::api
