// DLPack (v0.6 ABI, <dlpack/dlpack.h>): Array::to_dlpack hands a shared array
// to another framework as a managed tensor, and from_dlpack wraps one with
// array_from_ptr, so both follow the rules of memory outside Tack.
#include "runtime/memory/dlpack.hpp"

#include "runtime/memory/access.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/devices/backend.hpp"
#include "support/no_copy.hpp"

#include <tack/array.hpp>
#include <tack/error.hpp>

#include <dlpack/dlpack.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tack::runtime {
namespace {

// kDLOneAPI, which the v0.6 header Tack builds against does not name yet (DLPack 0.7 does).
constexpr int kDLOneApiDevice = 14;
// kDLBool (DLPack 0.8): NumPy's bool arrays, one byte an element, as Tack's.
constexpr std::uint8_t kDLBoolCode = 6;

struct DeviceType {
  int type;
  const char* kind;     // NativeMemory::kind
  const char* name;     // the DLPack name, for messages
  const char* backend;  // the Tack device
};
constexpr DeviceType kDeviceTypes[] = {
    {kDLCPU, "host", "kDLCPU", "cpu"},        {kDLCUDA, "cuda", "kDLCUDA", "cuda"},
    {kDLROCM, "hip", "kDLROCM", "hip"},       {kDLOpenCL, "opencl", "kDLOpenCL", "opencl"},
    {kDLMetal, "metal", "kDLMetal", "metal"}, {kDLOneApiDevice, "level_zero", "kDLOneAPI", "level_zero"},
};

const DeviceType* by_type(int type) {
  for (const DeviceType& d : kDeviceTypes)
    if (d.type == type) return &d;
  return nullptr;
}
const DeviceType* by_kind(const std::string& kind) {
  for (const DeviceType& d : kDeviceTypes)
    if (kind == d.kind) return &d;
  return nullptr;
}

DLDataType dl_dtype(DType t) {
  DLDataType d{};
  d.code = t == DType::Bool ? kDLBoolCode
                            : static_cast<std::uint8_t>(is_float(t)        ? kDLFloat
                                                        : is_signed_int(t) ? kDLInt
                                                                           : kDLUInt);
  d.bits = static_cast<std::uint8_t>(8 * dtype_size(t));
  d.lanes = 1;
  return d;
}

// A DLPack dtype as NumPy names it (float16, bfloat16, complex64, ...), for messages.
std::string dl_dtype_name(const DLDataType& d) {
  const std::string bits = std::to_string(d.bits);
  switch (d.code) {
    case kDLInt: return "int" + bits;
    case kDLUInt: return "uint" + bits;
    case kDLFloat: return "float" + bits;
    case kDLBfloat: return "bfloat" + bits;
    case kDLComplex: return "complex" + bits;
    case kDLBoolCode: return d.bits == 8 ? "bool" : "bool of " + bits + " bits";
    default: return "DLPack type code " + std::to_string(d.code) + " of " + bits + " bits";
  }
}

DType tack_dtype(const DLDataType& d) {
  if (d.lanes != 1)
    throw TypeError("from_dlpack: a vector dtype (" + dl_dtype_name(d) + ", " + std::to_string(d.lanes) +
                    " lanes) is not one of Tack's dtypes");
  for (DType t : kArrayDTypes) {
    const DLDataType m = dl_dtype(t);
    if (m.code == d.code && m.bits == d.bits) return t;
  }
  // Refused, never converted: a copy in another dtype is the caller's choice to make.
  const bool floating = d.code == kDLFloat || d.code == kDLBfloat;
  throw TypeError("from_dlpack: dtype " + dl_dtype_name(d) +
                  " is not one of Tack's dtypes (bool, int8, int16, int32, int64, uint8, uint16, uint32, "
                  "uint64, float32, float64); convert it first" +
                  (floating ? ", e.g. a.astype(np.float32)" : ""));
}

// The Tack device a tensor of this DLPack device lands on when none is given.
Device default_device(const DeviceType& d) {
  if (d.type != kDLCPU) return tack::device(d.backend);
  const std::vector<std::string> names = backend_names();
  return tack::device(std::find(names.begin(), names.end(), "cpu") != names.end() ? "cpu" : "interp");
}

// Calls the producer's deleter when the last array over its memory is gone.
struct TensorOwner : support::NoCopy {
  DLManagedTensor* tensor = nullptr;
  TensorOwner() = default;
  ~TensorOwner() {
    if (tensor && tensor->deleter) tensor->deleter(tensor);
  }
};

struct Exported {
  DLManagedTensor tensor{};
  std::shared_ptr<ArrayStorage> storage;  // the array's memory, until the consumer is done
  std::vector<std::int64_t> shape;
};

}  // namespace

DLManagedTensor* to_dlpack(const Array& array) {
  const std::shared_ptr<ArrayStorage>& storage = detail::Access::storage(array);
  storage_of(storage, "to_dlpack()");
  const NativeMemory m = array.share();
  const DeviceType* d = by_kind(m.kind);
  if (!d) throw InvalidArgument("to_dlpack(): DLPack has no device type for " + m.kind + " memory");
  auto* out = new Exported;
  out->storage = storage;
  out->shape = storage->shape;
  DLTensor& t = out->tensor.dl_tensor;
  t.data = reinterpret_cast<void*>(m.handle);
  t.device.device_type = static_cast<DLDeviceType>(d->type);
  t.device.device_id = m.device_id;
  t.ndim = static_cast<int>(out->shape.size());
  t.dtype = dl_dtype(storage->dtype);
  t.shape = out->shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  out->tensor.manager_ctx = out;
  out->tensor.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  return &out->tensor;
}

Array from_dlpack(DLManagedTensor* tensor, const Device& device) {
  if (!tensor) throw InvalidArgument("from_dlpack: the tensor is null");
  const DLTensor& t = tensor->dl_tensor;
  const DeviceType* d = by_type(t.device.device_type);
  if (!d)  // memory of a kind Tack has no device for: a TypeError, as a dtype it has not
    throw TypeError("from_dlpack: DLPack device type " + std::to_string(t.device.device_type) +
                          " is not memory of a Tack device (kDLCPU, kDLCUDA, kDLROCM, kDLOpenCL, kDLMetal, kDLOneAPI)");
  const DType dtype = tack_dtype(t.dtype);
  if (t.ndim < 1 || t.ndim > 4)
    throw InvalidArgument("from_dlpack: arrays have 1 to 4 dimensions, the tensor has " + std::to_string(t.ndim));
  if (!t.shape) throw InvalidArgument("from_dlpack: the tensor has no shape");
  std::vector<std::int64_t> shape(t.shape, t.shape + t.ndim);
  const std::int64_t count = checked_count(shape, dtype, "from_dlpack");
  if (t.strides && count > 0) {
    // Row-major and contiguous; an extent of 1 may carry any stride. A layout Tack cannot index is a
    // TypeError, as a dtype it has not is: the tensor is of a kind Tack does not take, not a bad value.
    std::int64_t expect = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (shape[static_cast<std::size_t>(i)] != 1 && t.strides[i] != expect)
        throw TypeError("from_dlpack: the tensor is not row-major and contiguous (shape " + shape_text(shape) +
                        ", stride " + std::to_string(t.strides[i]) + " of dimension " + std::to_string(i) +
                        " should be " + std::to_string(expect) + "); make a contiguous copy first");
      expect *= shape[static_cast<std::size_t>(i)];
    }
  }
  // An OpenCL tensor's data is a cl_mem handle and a Metal one's an id<MTLBuffer>, not an address an offset could
  // move into.
  if ((d->type == kDLOpenCL || d->type == kDLMetal) && t.byte_offset != 0)
    throw InvalidArgument("from_dlpack: a " + std::string(d->name) + " tensor's data is " +
                          (d->type == kDLOpenCL ? "a cl_mem" : "an id<MTLBuffer>") +
                          ", which Tack wraps whole; its byte_offset must be 0, not " + std::to_string(t.byte_offset));
  Device target = detail::Access::backend(device) ? device : default_device(*d);
  const std::string& name = target.name();
  const bool host_device = name == "cpu" || name == "interp";
  if (d->type == kDLCPU ? !host_device : name != d->backend) {
    // The device's own reason where the device type does not convey it (metal: Capabilities::dlpack_refusal_note).
    const std::string& note = target.capabilities().dlpack_refusal_note;
    throw InvalidArgument("from_dlpack: a " + std::string(d->name) + " tensor cannot be used on the " + name +
                          " device" +
                          (d->type == kDLCPU ? " (use cpu or interp)" : " (use " + std::string(d->backend) + ")") +
                          (note.empty() ? "" : ": " + note));
  }
  const auto address = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  // Owned only once the array exists: until then an error leaves the tensor to the caller.
  auto owner = std::make_shared<TensorOwner>();
  Array out = array_from_ptr(target, address, dtype, std::move(shape), owner);
  owner->tensor = tensor;
  return out;
}

}  // namespace tack::runtime
