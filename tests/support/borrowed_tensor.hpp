// A DLPack tensor over memory a test owns (one dimension of f32), whose deleter
// only counts its calls: for imports that must call it once, when the last
// array over the memory goes, and never for a refused tensor.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

namespace tack_test {

struct BorrowedTensor {
  std::vector<std::int64_t> shape;
  DLManagedTensor m{};
  int deleted = 0;
  BorrowedTensor(void* data, int device_type, std::int64_t count) : shape{count} {
    m.dl_tensor.data = data;
    m.dl_tensor.device = {static_cast<DLDeviceType>(device_type), 0};
    m.dl_tensor.ndim = 1;
    m.dl_tensor.dtype = {kDLFloat, 32, 1};
    m.dl_tensor.shape = shape.data();
    m.manager_ctx = this;
    m.deleter = [](DLManagedTensor* self) { ++static_cast<BorrowedTensor*>(self->manager_ctx)->deleted; };
  }
};

}  // namespace tack_test
