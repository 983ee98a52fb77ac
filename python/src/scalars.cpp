// Python numbers as Tack scalars. Python int and float are weak, as NumPy 2
// (NEP 50) treats them: the kernel argument holds the value in i64, u64 or f64
// and adapts to the other operand where it is used. NumPy scalars and bool are
// strong. Inside a kernel, Python literals become the core's weak literals.
#include "bindings.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <Python.h>

#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tack::python {
namespace {

// NumPy's scalar types, registered by tack/_dtypes.py at import (numpy is not a build dependency).
std::vector<std::pair<PyTypeObject*, DType>> g_numpy_scalars;

std::string python_type_name(nb::handle h) { return nb::type_name(h.type()).c_str(); }

// The integer value of a Python int: false with the Python error cleared when it fits neither i64 nor u64.
bool int_bits(PyObject* o, std::uint64_t& bits, bool& is_unsigned) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    bits = static_cast<std::uint64_t>(v);
    is_unsigned = false;
    return true;
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
      bits = u;
      is_unsigned = true;
      return true;
    }
    PyErr_Clear();
  }
  return false;
}

std::uint64_t numpy_scalar_bits(nb::handle h, DType t) {
  if (is_float(t)) {
    double d = PyFloat_AsDouble(h.ptr());
    if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return t == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(d)) : std::bit_cast<std::uint64_t>(d);
  }
  nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  std::uint64_t bits = 0;
  bool is_unsigned = false;
  if (!int_bits(index.ptr(), bits, is_unsigned)) throw TypeError("a NumPy integer scalar out of 64-bit range");
  return bits;
}

void register_numpy_scalars(const std::vector<std::pair<nb::handle, DType>>& types) {
  g_numpy_scalars.clear();
  for (const auto& [type, dtype] : types) {
    if (!PyType_Check(type.ptr())) throw InvalidArgument("register_numpy_scalars takes types");
    Py_INCREF(type.ptr());  // NumPy's types live as long as the process
    g_numpy_scalars.emplace_back(reinterpret_cast<PyTypeObject*>(type.ptr()), dtype);
  }
}

}  // namespace

bool numpy_scalar_dtype(nb::handle h, DType& out) {
  PyTypeObject* t = Py_TYPE(h.ptr());
  for (const auto& [type, dtype] : g_numpy_scalars)
    if (type == t) {
      out = dtype;
      return true;
    }
  return false;
}

bool scalar_arg(nb::handle h, KernelArg& out) {
  PyObject* o = h.ptr();
  // NumPy scalars first: np.float64 is a subclass of float, and it is strong.
  DType t;
  if (numpy_scalar_dtype(h, t)) {
    out = KernelArg(std::int64_t{0});
    out.dtype = t;
    out.bits = numpy_scalar_bits(h, t);
    return true;
  }
  if (PyBool_Check(o)) {
    out = KernelArg(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    std::uint64_t bits = 0;
    bool is_unsigned = false;
    if (!int_bits(o, bits, is_unsigned))
      throw InvalidArgument("the Python int " + nb::cast<std::string>(nb::str(h)) +
                            " does not fit 64 bits, so no kernel scalar can hold it");
    out = KernelArg(std::int64_t{0});
    out.dtype = is_unsigned ? DType::U64 : DType::I64;
    out.bits = bits;
    out.weak = true;
    return true;
  }
  if (PyFloat_Check(o)) {
    out = KernelArg(PyFloat_AS_DOUBLE(o));
    out.weak = true;
    return true;
  }
  return false;
}

lang::Value to_value(nb::handle h) {
  if (nb::isinstance<lang::Value>(h)) return nb::cast<lang::Value>(h);
  PyObject* o = h.ptr();
  DType t;
  if (numpy_scalar_dtype(h, t)) {
    // A NumPy scalar is strong: the literal of its own type, cast to that type.
    const std::uint64_t bits = numpy_scalar_bits(h, t);
    lang::detail::ExprHandle lit;
    if (t == DType::F32)
      lit = lang::detail::literal_float(std::bit_cast<float>(static_cast<std::uint32_t>(bits)), t);
    else if (t == DType::F64)
      lit = lang::detail::literal_float(std::bit_cast<double>(bits), t);
    else if (is_unsigned_int(t))
      lit = lang::detail::literal_uint(bits, t);
    else
      lit = lang::detail::literal_int(static_cast<std::int64_t>(bits), t);
    return lang::cast(t, lang::Value(lit));
  }

  if (PyBool_Check(o)) return lang::Value(lang::detail::literal_bool(o == Py_True));
  if (PyLong_Check(o)) {
    std::uint64_t bits = 0;
    bool is_unsigned = false;
    if (!int_bits(o, bits, is_unsigned))
      throw TypeError("the integer literal " + nb::cast<std::string>(nb::str(h)) + " does not fit 64 bits");
    if (is_unsigned) return lang::Value(lang::detail::literal_uint(bits, DType::U64));
    const auto v = static_cast<std::int64_t>(bits);
    // As in C++: a literal that fits an int is an int, a larger one a long.
    const bool fits_i32 =
        v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
    return lang::Value(lang::detail::literal_int(v, fits_i32 ? DType::I32 : DType::I64));
  }
  if (PyFloat_Check(o)) return lang::Value(lang::detail::literal_float(PyFloat_AS_DOUBLE(o), DType::F64));
  throw TypeError("a " + python_type_name(h) +
                  " cannot be used in a kernel expression; kernels compute with numbers, arrays' elements and "
                  "Tack values");
}

void bind_scalars(nb::module_& m) { m.def("_register_numpy_scalars", &register_numpy_scalars); }

}  // namespace tack::python
