// tack.Device and tack.Array are Python classes (tack/_device.py, tack/_array.py)
// that subclass _core's, so their Python methods sit in their own class bodies.
// Each registers itself here at import, and _core makes every device and array
// it returns as an instance of the registered class: the object a user holds is
// always of the documented type, whichever call made it.
#include "bindings.hpp"

#include <Python.h>

#include <string>

namespace tack::python {

PyTypeObject* g_device_class = nullptr;
PyTypeObject* g_array_class = nullptr;

namespace {

template <class T>
nb::object make_instance(PyTypeObject* cls, T&& value) {
  nb::object out = nb::inst_alloc(nb::handle(reinterpret_cast<PyObject*>(cls)));
  new (nb::inst_ptr<std::decay_t<T>>(out)) std::decay_t<T>(std::forward<T>(value));
  nb::inst_mark_ready(out);
  return out;
}

// Registers `cls`, a subclass of _core.Device or _core.Array that adds no fields of its own.
void use_python_class(nb::handle cls) {
  PyTypeObject* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  auto base_of = [&](nb::handle base) {
    return PyType_Check(cls.ptr()) && PyType_IsSubtype(type, reinterpret_cast<PyTypeObject*>(base.ptr()));
  };
  PyTypeObject** slot = base_of(nb::type<Device>())  ? &g_device_class
                        : base_of(nb::type<Array>()) ? &g_array_class
                                                     : nullptr;
  if (!slot) throw TypeError("_use_python_class takes a subclass of _core.Device or _core.Array");
  Py_INCREF(cls.ptr());  // kept until exit, as the module's own types are
  *slot = type;
}

}  // namespace

nb::object to_python(Device d) { return make_instance(g_device_class, std::move(d)); }
nb::object to_python(Array a) { return make_instance(g_array_class, std::move(a)); }

void bind_classes(nb::module_& m) {
  g_device_class = reinterpret_cast<PyTypeObject*>(nb::type<Device>().ptr());
  g_array_class = reinterpret_cast<PyTypeObject*>(nb::type<Array>().ptr());
  m.def("_use_python_class", &use_python_class, nb::arg("cls"),
        "Makes _core return its devices or arrays as instances of cls (tack.Device, tack.Array)");
}

}  // namespace tack::python
