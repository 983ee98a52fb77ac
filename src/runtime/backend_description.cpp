// The Capabilities a backend's description gives, and the look-up by name.
#include "runtime/backend_description.hpp"

#include <iterator>
#include <vector>

namespace tack::runtime {

Capabilities BackendDescription::capabilities() const {
  Capabilities c;
  c.name = name;
  c.display_name = display_name;
  c.supported_dtypes = dtypes;
  c.supports_device_reductions = device_reductions;
  c.supports_workgroups = workgroups;
  c.device_memory_spaces = memory_spaces;
  c.device_options = options;
  return derive_capabilities(c, atomic_dtypes);
}

Capabilities BackendDescription::capabilities(bool has_f64, bool has_64_bit_atomics) const {
  Capabilities c = capabilities();
  if (!has_f64) std::erase(c.supported_dtypes, DType::F64);
  std::vector<DType> atomics = atomic_dtypes;
  if (!has_64_bit_atomics) std::erase_if(atomics, [](DType t) { return dtype_bits(t) == 64; });
  return derive_capabilities(c, atomics);  // which drops the atomics of a dtype the device lacks
}

std::vector<DType> every_dtype() { return {std::begin(kNumericDTypes), std::end(kNumericDTypes)}; }

const BackendDescription* find_backend_description(std::string_view name) {
  for (const BackendDescription* d : backend_descriptions())
    if (d->name == name) return d;
  return nullptr;
}

}  // namespace tack::runtime
