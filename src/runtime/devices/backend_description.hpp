// What is known of a backend without a device: its name, options, static
// capabilities, compile recipe (its lowering and emitter) and factory. The top
// layer holds every backend's description in one table
// (src/api/backend_list.cpp), and the registry (tack::device, backend_names),
// the compile path (resolve_variant, tack::inspect and its source-only
// targets), each device's Capabilities and the docs test all read it, so they
// cannot disagree and the backends can be compared row by row.
#pragma once

#include "abi/scalar_pack.hpp"
#include "ir/ir.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/devices/compile_recipe.hpp"

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
  // How the pipeline ends for this backend and what emits its code (compile_recipe.hpp).
  CompileRecipe recipe;
  // Makes a device; null where this library is built without the backend's runtime (metal off Apple
  // platforms), which then has only its recipe's emitter.
  std::shared_ptr<Backend> (*create)(const DeviceOptions& options) = nullptr;

  // The Capabilities these facts give, for a device that may lack f64 (then also f64 atomics) or 64-bit
  // atomics; a device starts from them.
  Capabilities capabilities(bool has_f64 = true, bool has_64_bit_atomics = true) const;
};

const BackendDescription* find_backend_description(std::string_view name);
// A backend's own description, which its device starts from; the backend must be in the list.
const BackendDescription& backend_description(std::string_view name);

// The recipe of the row named `name` (what Backend::recipe() holds); where there is no such row (a test's
// backend), the empty recipe: nothing lowered, no emitter.
const CompileRecipe& compile_recipe(std::string_view name);
// The code the backend compiles from a kernel its recipe lowered, as tack::inspect shows it: the recipe's
// emitter's output, or Backend::source where the recipe has no emitter.
std::string generated_source(Backend& backend, const abi::PackedKernel& lowered);

}  // namespace tack::runtime

namespace tack::api {
// Every backend this library knows, whether or not its runtime is built, in name order. Declared here, defined
// by the top layer (src/api/backend_list.cpp), which knows them; the runtime knows no backend by name.
const std::vector<const runtime::BackendDescription*>& backend_descriptions();
}  // namespace tack::api
