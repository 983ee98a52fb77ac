// DLPack hand-over both ways, behind Array::to_dlpack and tack::from_dlpack
// (src/api/array.cpp).
#pragma once

#include <tack/array.hpp>
#include <tack/device.hpp>

namespace tack::runtime {

// The array's memory as a managed tensor (the array is shared first); the tensor keeps the memory alive.
DLManagedTensor* to_dlpack(const Array& array);
// An array over the tensor's memory, on `device` or the device its memory belongs to.
Array from_dlpack(DLManagedTensor* tensor, const Device& device);

}  // namespace tack::runtime
