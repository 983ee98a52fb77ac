// DLPack from Python: Array.__dlpack__ hands out a "dltensor" capsule of
// Array::to_dlpack(); from_dlpack consumes one with tack::from_dlpack. The
// capsule protocol: a consumer renames the capsule "used_dltensor" and owns the
// tensor; a capsule still named "dltensor" when collected was never consumed,
// so its destructor calls the tensor's deleter.
#include "bindings.hpp"

#include <dlpack/dlpack.h>

#include <Python.h>

#include <string>

namespace tack::python {
namespace {

constexpr const char* kFresh = "dltensor";
constexpr const char* kUsed = "used_dltensor";

void drop_unconsumed(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kFresh)) return;  // consumed (renamed): the consumer owns it
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kFresh));
  if (t && t->deleter) t->deleter(t);
}

nb::object to_capsule(const Array& a) {
  DLManagedTensor* t = nullptr;
  {
    nb::gil_scoped_release release;  // share() waits for the array's launches
    t = a.to_dlpack();
  }
  PyObject* c = PyCapsule_New(t, kFresh, &drop_unconsumed);
  if (!c) {
    t->deleter(t);
    throw nb::python_error();
  }
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
  if (!PyCapsule_IsValid(capsule.ptr(), kFresh))
    throw InvalidArgument(PyCapsule_CheckExact(capsule.ptr())
                              ? "from_dlpack: the capsule was already consumed (its name is not 'dltensor')"
                              : "from_dlpack: __dlpack__() did not return a 'dltensor' PyCapsule");
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kFresh));
  Device d = device.is_none() ? Device() : nb::cast<Device>(device);
  Array out;
  {
    nb::gil_scoped_release release;
    out = tack::from_dlpack(t, d);  // on an error the capsule still owns the tensor
  }
  if (PyCapsule_SetName(capsule.ptr(), kUsed) != 0) throw nb::python_error();
  return out;
}

}  // namespace

void bind_dlpack(nb::module_& m) {
  m.def("_from_dlpack_capsule", &from_capsule, nb::arg("capsule"), nb::arg("device").none());
}

nb::object dlpack_capsule(const Array& a) { return to_capsule(a); }
nb::tuple dlpack_device_of(const Array& a) { return dlpack_device(a); }

}  // namespace tack::python
