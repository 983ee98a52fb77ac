// The one place an array's storage is filled in, for every constructor that
// has checked its shape and made or wrapped its buffer (Device::zeros, empty,
// from_host, empty_exportable, array_from_ptr).
#pragma once

#include "runtime/devices/backend.hpp"

#include <tack/array.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace tack::runtime {

// An Array of `count` elements of `dtype` in `buffer`, on `backend`; `count` is checked_count(shape, dtype).
Array new_array(std::shared_ptr<Backend> backend, DType dtype, std::vector<std::int64_t> shape, std::int64_t count,
                std::shared_ptr<Buffer> buffer);

}  // namespace tack::runtime
