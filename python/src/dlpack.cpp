// DLPack from Python: Array.__dlpack__ hands out a capsule of
// Array::to_dlpack(), "dltensor_versioned" (DLPack 1.0) to a consumer that asks
// for max_version >= (1, 0), else "dltensor" (0.6); from_dlpack consumes either
// with tack::from_dlpack. The capsule protocol: a consumer renames the capsule
// "used_..." and owns the tensor; a capsule still carrying its first name when
// collected was never consumed, so its destructor calls the tensor's deleter.
#include "bindings.hpp"
#include "dlpack_versioned.hpp"

#include <dlpack/dlpack.h>

#include <Python.h>

#include <string>

namespace tack::python {
namespace {

constexpr const char* kFresh = "dltensor";
constexpr const char* kUsed = "used_dltensor";
constexpr const char* kFreshVersioned = "dltensor_versioned";
constexpr const char* kUsedVersioned = "used_dltensor_versioned";

void drop_unconsumed(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kFresh)) return;  // consumed (renamed): the consumer owns it
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kFresh));
  if (t && t->deleter) t->deleter(t);
}

void drop_unconsumed_versioned(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kFreshVersioned)) return;
  auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kFreshVersioned));
  if (t && t->deleter) t->deleter(t);
}

// Whether a consumer's max_version asks for DLPack 1.0 or later.
bool wants_versioned(nb::handle max_version) {
  if (max_version.is_none()) return false;
  nb::sequence v = nb::borrow<nb::sequence>(max_version);
  return nb::len(v) >= 1 && nb::cast<int>(v[0]) >= 1;
}

nb::object to_capsule(const Array& a, nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  if (!copy.is_none() && nb::cast<bool>(copy))
    throw nb::buffer_error("tack arrays are exported in place (copy=True was asked); copy with numpy() instead");
  if (!dl_device.is_none()) {
    nb::tuple want = nb::borrow<nb::tuple>(dl_device);
    nb::tuple have = dlpack_device_of(a);
    if (nb::cast<int>(want[0]) != nb::cast<int>(have[0]) || nb::cast<int>(want[1]) != nb::cast<int>(have[1]))
      throw nb::buffer_error("tack arrays are exported on their own device only (dl_device differs)");
  }
  const bool versioned = wants_versioned(max_version);
  DLManagedTensor* t = nullptr;
  {
    nb::gil_scoped_release release;  // share() waits for the array's launches
    t = a.to_dlpack();
  }
  PyObject* c = nullptr;
  if (versioned) {
    DLManagedTensorVersioned* v = versioned_from(t);
    c = PyCapsule_New(v, kFreshVersioned, &drop_unconsumed_versioned);
    if (!c) v->deleter(v);
  } else {
    c = PyCapsule_New(t, kFresh, &drop_unconsumed);
    if (!c) t->deleter(t);
  }
  if (!c) throw nb::python_error();
  return nb::steal(c);
}

// (device type, device id) as DLPack names them, without sharing the array.
nb::tuple dlpack_device(const Array& a) {
  const std::string& name = a.device().name();
  if (name == "cpu" || name == "interp") return nb::make_tuple(int(kDLCPU), 0);
  NativeMemory n;
  {
    nb::gil_scoped_release release;
    n = a.share();
  }
  const int type = name == "cuda"     ? int(kDLCUDA)
                   : name == "hip"    ? int(kDLROCM)
                   : name == "opencl" ? int(kDLOpenCL)
                   : name == "metal"  ? int(kDLMetal)
                                      : 14;  // kDLOneAPI (level_zero)
  return nb::make_tuple(type, n.device_id);
}

Array from_capsule(nb::handle capsule, nb::object device) {
  Device d = device.is_none() ? Device() : nb::cast<Device>(device);
  Array out;
  if (PyCapsule_IsValid(capsule.ptr(), kFreshVersioned)) {
    auto* v = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), kFreshVersioned));
    if (v->version.major != 1)
      throw InvalidArgument("from_dlpack: DLPack " + std::to_string(v->version.major) + "." +
                            std::to_string(v->version.minor) + " tensors are not supported (1.x and 0.6 are)");
    if (v->flags & kDLPackFlagReadOnly)
      throw InvalidArgument(
          "from_dlpack: the tensor is read-only, and Tack kernels may write to their arrays; "
          "copy it with Device.array() instead");
    DLManagedTensor* legacy = legacy_from(v);
    try {
      nb::gil_scoped_release release;
      out = tack::from_dlpack(legacy, d);
    } catch (...) {
      release_wrapper(legacy);  // refused: the producer still owns the tensor
      throw;
    }
    if (PyCapsule_SetName(capsule.ptr(), kUsedVersioned) != 0) throw nb::python_error();
    return out;
  }
  if (!PyCapsule_IsValid(capsule.ptr(), kFresh))
    throw InvalidArgument(PyCapsule_CheckExact(capsule.ptr())
                              ? "from_dlpack: the capsule was already consumed (its name is not 'dltensor')"
                              : "from_dlpack: __dlpack__() did not return a 'dltensor' PyCapsule");
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kFresh));
  {
    nb::gil_scoped_release release;
    out = tack::from_dlpack(t, d);  // on an error the capsule still owns the tensor
  }
  if (PyCapsule_SetName(capsule.ptr(), kUsed) != 0) throw nb::python_error();
  return out;
}

}  // namespace

void bind_dlpack(nb::module_& m) {
  m.def(
      "_from_dlpack_capsule",
      [](nb::handle capsule, nb::object device) { return to_python(from_capsule(capsule, std::move(device))); },
      nb::arg("capsule"), nb::arg("device").none());
}

nb::object dlpack_capsule(const Array& a, nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  return to_capsule(a, max_version, dl_device, copy);
}
nb::tuple dlpack_device_of(const Array& a) { return dlpack_device(a); }

}  // namespace tack::python
