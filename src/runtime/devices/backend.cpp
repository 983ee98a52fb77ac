// Shared Backend behaviour: derived capabilities and the in-memory variant cache.
#include "runtime/devices/backend.hpp"

#include "ir/check.hpp"
#include "runtime/devices/backend_description.hpp"

#include <algorithm>

namespace tack::runtime {

Backend::Backend(Capabilities caps) : caps_(std::move(caps)), recipe_(&compile_recipe(caps_.name)) {}

std::string Backend::source(const ir::Kernel&) {
  TACK_UNREACHABLE("Backend::source asked of a backend whose row emits its source");
}

ExportedMemory Backend::export_memory(ArrayStorage&) {
  TACK_UNREACHABLE("export_memory asked of a backend without exportable memory");
}

std::shared_ptr<Buffer> Backend::allocate_in(std::string_view, std::size_t, bool) {
  TACK_UNREACHABLE("allocate_in asked of a backend with one memory space");
}

std::shared_ptr<Buffer> Backend::wrap_memory(std::uintptr_t, std::size_t, std::shared_ptr<void>) {
  TACK_UNREACHABLE("wrap_memory asked of a backend that cannot wrap memory");
}

std::shared_ptr<const CompiledVariant> Backend::find_variant(const VariantKey& key) const {
  std::shared_lock lock(variants_mutex_);
  auto it = variants_.find(key);
  return it == variants_.end() ? nullptr : it->second;
}

std::shared_ptr<const CompiledVariant> Backend::add_variant(const VariantKey& key,
                                                            std::shared_ptr<const CompiledVariant> v) {
  std::unique_lock lock(variants_mutex_);
  // Two threads may compile the same variant at once; the first one kept wins.
  return variants_.try_emplace(key, std::move(v)).first->second;
}

std::size_t Backend::variant_count() const {
  std::shared_lock lock(variants_mutex_);
  return variants_.size();
}

Capabilities derive_capabilities(Capabilities c, const std::vector<DType>& atomic_table) {
  c.supports_f64 =
      std::find(c.supported_dtypes.begin(), c.supported_dtypes.end(), DType::F64) != c.supported_dtypes.end();
  c.supported_atomic_dtypes.clear();
  for (DType t : atomic_table)
    if (std::find(c.supported_dtypes.begin(), c.supported_dtypes.end(), t) != c.supported_dtypes.end())
      c.supported_atomic_dtypes.push_back(t);
  return c;
}

}  // namespace tack::runtime
