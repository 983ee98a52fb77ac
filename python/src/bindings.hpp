// What the files of tack._core share: one bind_* function per concern, and the
// conversions of Python objects to Tack's values and back.
#pragma once

#include <tack/tack.hpp>

#include <nanobind/nanobind.h>

#include <Python.h>

#include <exception>

namespace tack::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_scalars(nb::module_& m);
void bind_host(nb::module_& m);
void bind_dlpack(nb::module_& m);
void bind_values(nb::module_& m);
void bind_statements(nb::module_& m);
void bind_kernels(nb::module_& m);
void bind_global_guards(nb::module_& m);
void bind_classes(nb::module_& m);
void bind_random(nb::module_& m);
void bind_about(nb::module_& m);

// A device or array as a Python object of the class tack registered for it (tack.Device,
// tack.Array; classes.cpp), which every call that returns one uses.
nb::object to_python(Device d);
nb::object to_python(Array a);
// Those classes, for the exact-type tests of the call path (cheaper than nb::isinstance).
extern PyTypeObject* g_device_class;
extern PyTypeObject* g_array_class;

// Before a Python kernel's call: re-traces it if a global it read has changed (global_guards.cpp).
void check_globals(const Kernel& k);

// A C++ tack::Kernel as the Python kernel type.
nb::object wrap_kernel(Kernel k);

// The Python exception (a tack._errors class) for a C++ exception, with its message unchanged.
nb::object exception_object(const std::exception_ptr& error);

// A Python bool, int, float or NumPy scalar as a kernel argument: int and float are
// weak (i64 / u64 / f64 holding the value), bool and NumPy scalars strong. Returns
// false for any other object.
bool scalar_arg(nb::handle h, KernelArg& out);
// The dtype of a NumPy scalar's type, if it is one of Tack's ten.
bool numpy_scalar_dtype(nb::handle h, DType& out);
// A Python object as a kernel-language value: a Value itself, or a weak literal.
lang::Value to_value(nb::handle h);

// Array.__dlpack__ and __dlpack_device__ (dlpack.cpp).
nb::object dlpack_capsule(const Array& a, nb::handle max_version, nb::handle dl_device, nb::handle copy);
nb::tuple dlpack_device_of(const Array& a);

// C++ threads (tack-wait) call into Python only between enter_python() returning
// true and leave_python(). At interpreter exit an atexit hook closes the gate and
// waits for the calls in flight, so no thread takes the GIL while Python
// finalizes (which aborts the process).
bool enter_python();
void leave_python();

// Holds a Python object from C++ code that may drop it on a thread without the GIL.
struct PyRef {
  nb::object object;
  explicit PyRef(nb::object o) : object(std::move(o)) {}
  ~PyRef();
};

}  // namespace tack::python
