// What is known of a backend without a device: its name, options, static
// capabilities, code generator and factory. The top layer holds every
// backend's description in one table (src/api/backend_list.cpp), and the
// registry (tack::device, backend_names), tack::inspect's source-only targets,
// each device's Capabilities and the docs test all read it, so they cannot
// disagree and the backends can be compared row by row.
#pragma once

#include "codegen/c_family.hpp"
#include "ir/ir.hpp"
#include "passes/pipeline.hpp"
#include "runtime/devices/backend.hpp"

#include <tack/device.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

// The optional features of a backend, as a device with every one it can have has them. Every backend has the
// nine numeric dtypes other than f64, and every atomic operation on each that is not 64-bit (native or a
// compare-and-swap loop).
enum class Feature : unsigned {
  F64 = 1 << 0,               // the f64 dtype; a device narrows it to what it reports
  Atomics64 = 1 << 1,         // atomics on the 64-bit dtypes; a device narrows them to what it reports
  DeviceReductions = 1 << 2,  // Array::sum/min/max of f32 on the device
  Workgroups = 1 << 3,
  // The runtime keeps a texture within the device's limits in the texture hardware rather than sampling an f32
  // copy in software. The generated code differs, so tack::inspect without the device answers the same
  // (reference: Textures).
  TexturesInHardware = 1 << 4,
};

// A set of Features, written F64 | Workgroups.
class Features {
 public:
  constexpr Features() = default;
  constexpr Features(Feature f) : bits_(static_cast<unsigned>(f)) {}  // implicit: a feature is a set of one
  constexpr bool has(Feature f) const { return (bits_ & static_cast<unsigned>(f)) != 0; }
  friend constexpr Features operator|(Features a, Features b) { return Features(a.bits_ | b.bits_); }

 private:
  constexpr explicit Features(unsigned bits) : bits_(bits) {}
  unsigned bits_ = 0;
};
constexpr Features operator|(Feature a, Feature b) { return Features(a) | Features(b); }

struct BackendDescription {
  std::string name;                       // tack::device(name)
  std::string display_name;               // a device may add to it ("OpenCL (<device>)")
  std::vector<std::string> options = {};  // the option names tack::device(name, options) accepts, in this order
  std::vector<std::string> memory_spaces = {};
  Features features;
  // Typed, optimized IR to the source the backend compiles, without a device; null for the backends whose
  // device needs no driver (interp, cpu), which inspect always opens.
  std::string (*generate)(const ir::Kernel& typed) = nullptr;
  // Makes a device; null where this library is built without the backend's runtime (metal off Apple
  // platforms), which then has only its generator.
  std::shared_ptr<Backend> (*create)(const DeviceOptions& options) = nullptr;

  // The Capabilities these facts give, for a device that may lack f64 (then also f64 atomics) or 64-bit
  // atomics; a device starts from them.
  Capabilities capabilities(bool has_f64 = true, bool has_64_bit_atomics = true) const;
};

// A C-family backend's generate: the backend lowering (pack_scalars), then its dialect's emitter.
template <codegen::CSource (*Emit)(const abi::PackedKernel&)>
std::string c_family_source(const ir::Kernel& typed) {
  return Emit(passes::lower_for_backend(typed, passes::kCFamilyLowering)).text;
}

const BackendDescription* find_backend_description(std::string_view name);
// A backend's own description, which its device starts from; the backend must be in the list.
const BackendDescription& backend_description(std::string_view name);

}  // namespace tack::runtime

namespace tack::api {
// Every backend this library knows, whether or not its runtime is built, in name order. Declared here, defined
// by the top layer (src/api/backend_list.cpp), which knows them; the runtime knows no backend by name.
const std::vector<const runtime::BackendDescription*>& backend_descriptions();
}  // namespace tack::api
