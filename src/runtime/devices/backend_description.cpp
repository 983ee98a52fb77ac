// The Capabilities a backend's description gives, and the look-ups by name.
#include "runtime/devices/backend_description.hpp"

#include "ir/check.hpp"

#include <iterator>
#include <vector>

namespace tack::runtime {

Capabilities BackendDescription::capabilities(bool has_f64, bool has_64_bit_atomics) const {
  Capabilities c;
  c.name = name;
  c.display_name = display_name;
  c.supported_dtypes = {std::begin(kArrayDTypes), std::end(kArrayDTypes)};
  if (!has_f64 || !features.has(Feature::F64)) std::erase(c.supported_dtypes, DType::F64);
  c.supports_device_reductions = features.has(Feature::DeviceReductions);
  c.supports_workgroups = features.has(Feature::Workgroups);
  c.device_memory_spaces = memory_spaces;
  c.device_options = options;
  std::vector<DType> atomics(std::begin(kNumericDTypes), std::end(kNumericDTypes));
  if (!has_64_bit_atomics || !features.has(Feature::Atomics64))
    std::erase_if(atomics, [](DType t) { return dtype_bits(t) == 64; });
  return derive_capabilities(c, atomics);  // which drops the atomics of a dtype the device lacks
}

const BackendDescription* find_backend_description(std::string_view name) {
  for (const BackendDescription* d : api::backend_descriptions())
    if (d->name == name) return d;
  return nullptr;
}

const BackendDescription& backend_description(std::string_view name) {
  const BackendDescription* d = find_backend_description(name);
  TACK_CHECK(d != nullptr);
  return *d;
}

const CompileRecipe& compile_recipe(std::string_view name) {
  static const CompileRecipe none;
  const BackendDescription* d = find_backend_description(name);
  return d ? d->recipe : none;
}

std::string generated_source(Backend& backend, const abi::PackedKernel& lowered) {
  const CompileRecipe& recipe = backend.recipe();
  return recipe.emit ? recipe.emit(lowered).text : backend.source(lowered.kernel);
}

}  // namespace tack::runtime
