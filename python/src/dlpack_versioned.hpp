// DLPack 1.0's versioned tensor (DLManagedTensorVersioned), which Debian's
// DLPack 0.6 header does not declare: its layout, from the DLPack 1.0 ABI, and
// the wrappers between it and the 0.6 tensor the C++ core speaks. NumPy 2 and
// PyTorch ask for it (max_version=(1, 0)), and NumPy marks arrays imported from
// an unversioned tensor read-only, so an MPI receive into np.from_dlpack(a)
// needs the versioned one.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

namespace tack::python {

struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  std::uint64_t flags;
  DLTensor dl_tensor;  // the same layout in 0.6 and 1.0
};

inline constexpr std::uint64_t kDLPackFlagReadOnly = 1;  // DLPACK_FLAG_BITMASK_READ_ONLY
inline constexpr std::uint64_t kDLPackFlagIsCopied = 2;  // DLPACK_FLAG_BITMASK_IS_COPIED

// A 1.0 tensor over a 0.6 one; its deleter runs the 0.6 tensor's deleter.
DLManagedTensorVersioned* versioned_from(DLManagedTensor* legacy);
// A 0.6 tensor over a 1.0 one, for tack::from_dlpack; its deleter runs the 1.0
// tensor's. release_wrapper() frees the wrapper alone (the import failed and the
// producer still owns the tensor).
DLManagedTensor* legacy_from(DLManagedTensorVersioned* versioned);
void release_wrapper(DLManagedTensor* legacy);

}  // namespace tack::python
