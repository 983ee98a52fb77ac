// The wrappers between DLPack 1.0's versioned tensor and 0.6's (see the header).
#include "dlpack_versioned.hpp"

namespace tack::python {
namespace {

struct VersionedOverLegacy {
  DLManagedTensorVersioned versioned;
  DLManagedTensor* legacy;
};

struct LegacyOverVersioned {
  DLManagedTensor legacy;
  DLManagedTensorVersioned* versioned;
};

}  // namespace

DLManagedTensorVersioned* versioned_from(DLManagedTensor* legacy) {
  auto* w = new VersionedOverLegacy{};
  w->legacy = legacy;
  w->versioned.version = {1, 0};
  w->versioned.manager_ctx = w;
  w->versioned.flags = 0;  // writable, and the array's own memory
  w->versioned.dl_tensor = legacy->dl_tensor;
  w->versioned.deleter = [](DLManagedTensorVersioned* self) {
    auto* w = static_cast<VersionedOverLegacy*>(self->manager_ctx);
    if (w->legacy->deleter) w->legacy->deleter(w->legacy);
    delete w;
  };
  return &w->versioned;
}

DLManagedTensor* legacy_from(DLManagedTensorVersioned* versioned) {
  auto* w = new LegacyOverVersioned{};
  w->versioned = versioned;
  w->legacy.dl_tensor = versioned->dl_tensor;
  w->legacy.manager_ctx = w;
  w->legacy.deleter = [](DLManagedTensor* self) {
    auto* w = static_cast<LegacyOverVersioned*>(self->manager_ctx);
    if (w->versioned->deleter) w->versioned->deleter(w->versioned);
    delete w;
  };
  return &w->legacy;
}

void release_wrapper(DLManagedTensor* legacy) { delete static_cast<LegacyOverVersioned*>(legacy->manager_ctx); }

}  // namespace tack::python
