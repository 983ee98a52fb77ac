// What is known of a backend without a device: its name, options, static
// capabilities, code generator and factory, written once per backend in its
// own folder (src/backends/<name>/<name>_description.cpp). The registry
// (tack::device, backend_names), tack::inspect's source-only targets, each
// device's Capabilities and the docs test all read it, so they cannot disagree.
#pragma once

#include "codegen/c_family.hpp"
#include "ir/ir.hpp"
#include "passes/pipeline.hpp"
#include "runtime/backend.hpp"

#include <tack/device.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime {

struct BackendDescription {
  std::string name;                       // tack::device(name)
  std::string display_name;               // a device may add to it ("OpenCL (<device>)")
  std::vector<std::string> options = {};  // the option names tack::device(name, options) accepts, in this order
  // For a device with every optional feature; a device narrows them to what it reports (f64, 64-bit atomics).
  std::vector<DType> dtypes;
  std::vector<DType> atomic_dtypes;  // every atomic operation on each, native or a compare-and-swap loop
  std::vector<std::string> memory_spaces = {};
  bool device_reductions = false;  // Array::sum/min/max of f32 on the device
  bool workgroups = false;
  // Whether the runtime keeps a texture within the device's limits in the texture hardware rather than
  // sampling an f32 copy in software. The generated code differs, so tack::inspect without the device
  // answers the same (reference: Textures).
  bool textures_in_hardware = false;
  // Typed, optimized IR to the source the backend compiles, without a device; null for the backends whose
  // device needs no driver (interp, cpu), which inspect always opens.
  std::string (*generate)(const ir::Kernel& typed) = nullptr;
  // Makes a device; null where this library is built without the backend's runtime (metal off Apple
  // platforms), which then has only its generator.
  std::shared_ptr<Backend> (*create)(const DeviceOptions& options) = nullptr;

  // The Capabilities these facts give; a device starts from them.
  Capabilities capabilities() const;
  // ... for a device that may lack f64 (then also f64 atomics) or 64-bit atomics.
  Capabilities capabilities(bool has_f64, bool has_64_bit_atomics) const;
};

// The ten numeric dtypes, for a description's dtypes and atomic_dtypes.
std::vector<DType> every_dtype();

// A C-family backend's generate: the backend lowering (pack_scalars), then its dialect's emitter.
template <codegen::CSource (*Emit)(const abi::PackedKernel&)>
std::string c_family_source(const ir::Kernel& typed) {
  return Emit(passes::lower_for_backend(typed, passes::kCFamilyLowering)).text;
}

// Every backend this library knows, whether or not its runtime is built, in name order. Defined by the top
// layer (src/api/backend_list.cpp), which knows them; the runtime knows no backend by name.
const std::vector<const BackendDescription*>& backend_descriptions();
const BackendDescription* find_backend_description(std::string_view name);

}  // namespace tack::runtime
