// The host API: devices, arrays, textures and the memory that crosses Tack's
// edge. Every call that may wait for a device releases the GIL while it waits.
#include "bindings.hpp"

#include "api/frontend.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <Python.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace tack::python {
namespace {

using Shape = std::vector<std::int64_t>;
using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using HostOut = nb::ndarray<nb::c_contig, nb::device::cpu>;

nb::tuple shape_tuple(const Shape& shape) {
  nb::list out;
  for (std::int64_t d : shape) out.append(d);
  return nb::tuple(out);
}

// Calls back into Python from a tack-wait thread (or inline) once a mark is reached.
std::function<void(std::exception_ptr)> python_callback(nb::object callback) {
  auto ref = std::make_shared<PyRef>(std::move(callback));
  return [ref](std::exception_ptr error) {
    if (!enter_python()) return;  // Python is exiting: nobody is waiting any more
    {
      nb::gil_scoped_acquire gil;
      try {
        ref->object(error ? exception_object(error) : nb::none());
      } catch (nb::python_error& e) {
        e.discard_as_unraisable("tack: an asynchronous wait's callback");
      }
    }
    leave_python();
  };
}

DeviceOptions to_options(const nb::dict& options) {
  DeviceOptions out;
  for (auto [key, value] : options) {
    std::string name = nb::cast<std::string>(nb::str(key));
    PyObject* v = value.ptr();
    if (PyBool_Check(v))
      out.emplace(name, v == Py_True);
    else if (PyLong_Check(v))
      out.emplace(name, nb::cast<std::int64_t>(value));
    else if (PyFloat_Check(v))
      out.emplace(name, nb::cast<double>(value));
    else if (PyUnicode_Check(v))
      out.emplace(name, nb::cast<std::string>(value));
    else
      throw InvalidArgument("device option '" + name + "' must be a bool, int, float or str, got " +
                            std::string(nb::type_name(value.type()).c_str()));
  }
  return out;
}

nb::object from_buffer(const Device& d, const HostArray& data, DType dtype, const Shape& shape) {
  if (data.itemsize() != dtype_size(dtype))
    throw TypeError("from_buffer: the data has " + std::to_string(data.itemsize()) + "-byte elements but " +
                    std::string(dtype_name(dtype)) + " has " + std::to_string(dtype_size(dtype)));
  const std::size_t count = data.size();
  Array out;
  {
    nb::gil_scoped_release release;
    out = api::from_host(d, dtype, data.data(), count, shape);
  }
  return to_python(std::move(out));
}

void read_into(const Array& a, HostOut& out, std::int64_t start, std::int64_t count) {
  if (out.itemsize() != dtype_size(a.dtype()))
    throw TypeError("read_into: the output has " + std::to_string(out.itemsize()) + "-byte elements, the array is " +
                    std::string(dtype_name(a.dtype())));
  if (count > 0 && static_cast<std::size_t>(count) > out.size())
    throw InvalidArgument("read_into: the output holds " + std::to_string(out.size()) + " elements, " +
                          std::to_string(count) + " were asked for");
  void* dst = out.data();
  nb::gil_scoped_release release;
  api::read(a, start, count, dst);
}

void fill(Array& a, nb::handle value) {
  KernelArg v(0);
  if (!scalar_arg(value, v))
    throw TypeError("fill() takes a number, got " + std::string(nb::type_name(value.type()).c_str()));
  if (v.dtype == DType::Bool) {
    const bool b = v.bits != 0;
    nb::gil_scoped_release release;
    return api::fill(a, DType::Bool, &b);
  }
  nb::gil_scoped_release release;
  api::fill(a, v.dtype, &v.bits);  // the bits of an i64, u64, f64 or the scalar's dtype, little-endian
}

nb::object reduce(const Array& a, detail::ReduceOp op) {
  const DType t = a.dtype();
  if (t == DType::Bool && op != detail::ReduceOp::Sum) {  // all / any, a bool as NumPy's; the sum counts (below)
    bool out = false;
    {
      nb::gil_scoped_release release;
      api::reduce(a, op, DType::Bool, &out);
    }
    return nb::bool_(out);
  }
  if (is_float(t)) {
    double out = 0;
    {
      nb::gil_scoped_release release;
      api::reduce(a, op, DType::F64, &out);
    }
    return nb::float_(out);
  }
  if (is_unsigned_int(t)) {
    std::uint64_t out = 0;
    {
      nb::gil_scoped_release release;
      api::reduce(a, op, DType::U64, &out);
    }
    return nb::int_(out);
  }
  std::int64_t out = 0;
  {
    nb::gil_scoped_release release;
    api::reduce(a, op, DType::I64, &out);
  }
  return nb::int_(out);
}

}  // namespace

void bind_host(nb::module_& m) {
  auto dtype = nb::enum_<DType>(m, "DType", "Tack's element types inside the core; users pass NumPy dtypes.");
  dtype.value("bool", DType::Bool);
  for (DType t : kNumericDTypes) dtype.value(std::string(dtype_name(t)).c_str(), t);

  nb::class_<Capabilities>(m, "Capabilities")
      .def_ro("name", &Capabilities::name)
      .def_ro("display_name", &Capabilities::display_name)
      .def_ro("supported_dtypes", &Capabilities::supported_dtypes)
      .def_ro("supports_f64", &Capabilities::supports_f64)
      .def_ro("supports_device_reductions", &Capabilities::supports_device_reductions)
      .def_ro("supports_workgroups", &Capabilities::supports_workgroups)
      .def_ro("supported_atomic_dtypes", &Capabilities::supported_atomic_dtypes)
      .def_ro("device_memory_spaces", &Capabilities::device_memory_spaces)
      .def_ro("device_options", &Capabilities::device_options)
      .def_ro("supports_exportable_memory", &Capabilities::supports_exportable_memory)
      .def_ro("supports_wrapped_memory", &Capabilities::supports_wrapped_memory)
      .def_ro("dlpack_refusal_note", &Capabilities::dlpack_refusal_note);

  nb::class_<NativeMemory>(m, "NativeMemory",
                           "An array's memory as the device's own API names it, from Array.share(): hand it to "
                           "code outside Tack. Valid while the array lives.")
      .def_ro("kind", &NativeMemory::kind,
              "What handle is: 'host' (a host pointer: cpu, interp), 'cuda' (a CUdeviceptr), 'hip' and "
              "'level_zero' (device pointers), 'opencl' (a cl_mem), 'metal' (an unretained id<MTLBuffer>).")
      .def_ro("handle", &NativeMemory::handle, "The address or handle, as an int.")
      .def_ro("bytes", &NativeMemory::bytes, "The array's bytes, from handle on.")
      .def_ro("device_id", &NativeMemory::device_id, "The device's ordinal in its API (CUDA, HIP); 0 elsewhere.")
      .def("__repr__", [](const NativeMemory& n) {
        return "NativeMemory(kind='" + n.kind + "', handle=" + std::to_string(n.handle) +
               ", bytes=" + std::to_string(n.bytes) + ", device_id=" + std::to_string(n.device_id) + ")";
      });
  nb::class_<ExportedMemory>(m, "ExportedMemory",
                             "A CUDA array's memory as a POSIX file descriptor, from Array.export_memory(), for "
                             "another process or API (CUDA's cuMemImportFromShareableHandle, Vulkan, OpenGL).")
      .def_ro("fd", &ExportedMemory::fd, "A new file descriptor each call; the caller owns it and closes it.")
      .def_ro("allocation_bytes", &ExportedMemory::allocation_bytes,
              "The whole allocation's bytes, a multiple of the device's granularity (what to map).")
      .def_ro("bytes", &ExportedMemory::bytes, "The array's bytes, at offset 0 of the allocation.")
      .def_ro("device_ordinal", &ExportedMemory::device_ordinal, "The CUDA device the memory lives on.");

  nb::class_<Device>(m, "Device")
      .def_prop_ro("name", &Device::name, "The backend's name: 'cpu', 'interp', 'cuda', ...")
      .def_prop_ro("_capabilities", &Device::capabilities, nb::rv_policy::reference_internal)
      .def("_from_buffer", &from_buffer, nb::arg("data"), nb::arg("dtype"), nb::arg("shape"))
      .def("_zeros", [](const Device& d, DType t, const Shape& s) { return to_python(d.zeros(t, s)); })
      .def("_empty", [](const Device& d, DType t, const Shape& s) { return to_python(d.empty(t, s)); })
      .def("_zeros_in", [](const Device& d, DType t, const Shape& s,
                           const std::string& space) { return to_python(d.zeros(t, s, space)); })
      .def("_empty_in", [](const Device& d, DType t, const Shape& s,
                           const std::string& space) { return to_python(d.empty(t, s, space)); })
      .def("_empty_exportable",
           [](const Device& d, DType t, const Shape& s) { return to_python(d.empty_exportable(t, s)); })
      .def("synchronize", &Device::synchronize, nb::call_guard<nb::gil_scoped_release>(),
           "Waits for everything queued on this device.")
      .def("_when_done",
           [](const Device& d, nb::object callback) { api::after_queued(d, python_callback(std::move(callback))); })
      .def("__eq__",
           [](const Device& a, nb::handle b) { return nb::isinstance<Device>(b) && a == nb::cast<const Device&>(b); })
      .def("__hash__", [](const Device& d) { return std::hash<const void*>{}(api::device_identity(d)); })
      .def("__repr__", [](const Device& d) { return "tack.Device('" + d.name() + "')"; });

  m.def(
      "device",
      [](const std::string& name, const nb::dict& options) {
        return to_python(tack::device(name, to_options(options)));
      },
      nb::arg("name"), nb::arg("options"));
  m.def("backend_names", &tack::backend_names,
        "The names of the backends built into this library, whether or not they can run here.");
  m.def("sync", &tack::sync, nb::call_guard<nb::gil_scoped_release>(),
        "Waits for everything queued on every device made so far, raising a failed launch's error.");
  m.def("_when_all_done", [](nb::object callback) { api::after_all_queued(python_callback(std::move(callback))); });
  m.def("set_debug", &tack::set_debug, nb::arg("on"),
        "Turns debug mode on or off for the kernels compiled from now on: every array access is checked and an "
        "access out of range raises tack.IndexError (docs/semantics.md). TACK_DEBUG=1 sets it at start.");
  m.def("debug", &tack::debug, "Whether debug mode is on (see set_debug).");

  nb::class_<Array>(m, "Array")
      .def_prop_ro("_dtype", &Array::dtype)
      .def_prop_ro(
          "shape", [](const Array& a) { return shape_tuple(a.shape()); }, "The extents, a tuple of 1 to 4 ints.")
      .def_prop_ro("size", &Array::size, "The number of elements.")
      .def_prop_ro("ndim", &Array::rank, "The number of dimensions, 1 to 4.")
      .def_prop_ro(
          "device", [](const Array& a) { return to_python(a.device()); }, "The tack.Device the array lives on.")
      .def("_read_into", &read_into, nb::arg("out"), nb::arg("start"), nb::arg("count"))
      .def("_when_done",
           [](const Array& a, nb::object callback) { api::after_queued(a, python_callback(std::move(callback))); })
      .def("fill", &fill, nb::arg("value"), "Sets every element to value, converted as tack.cast does.")
      .def(
          "sum", [](const Array& a) { return reduce(a, detail::ReduceOp::Sum); },
          nb::sig("def sum(self) -> int | float"),
          "The sum of the elements; waits. Integers: a Python int (wrapping in 64 bits); floats: a float "
          "(accumulated in f64); bool: the count of True elements. An empty array sums to 0.")
      .def(
          "min", [](const Array& a) { return reduce(a, detail::ReduceOp::Min); },
          nb::sig("def min(self) -> int | float | bool"),
          "The smallest element; waits. NaN is skipped unless every element is NaN; bool: 'all'. An empty "
          "array raises tack.InvalidArgument.")
      .def(
          "max", [](const Array& a) { return reduce(a, detail::ReduceOp::Max); },
          nb::sig("def max(self) -> int | float | bool"),
          "The largest element; waits. NaN is skipped unless every element is NaN; bool: 'any'. An empty "
          "array raises tack.InvalidArgument.")
      .def("share", &Array::share, nb::call_guard<nb::gil_scoped_release>(),
           "Hands the memory to code outside Tack as a tack.NativeMemory: waits for the launches queued so far, "
           "then marks the array shared, so every later launch that uses it completes before returning.")
      .def("shared", &Array::shared,
           "Whether the memory was handed out (share(), export_memory(), DLPack) or came from outside "
           "(array_from_ptr, from_dlpack); such an array's launches complete before returning.")
      .def("export_memory", &Array::export_memory, nb::call_guard<nb::gil_scoped_release>(),
           "The memory as a tack.ExportedMemory (a file descriptor) another process or API can map: CUDA only "
           "(capabilities.supports_exportable_memory). An array not made with empty_exportable is moved into "
           "exportable memory first, once. tack.InvalidArgument on other devices.")
      .def(
          "_dlpack",
          [](const Array& a, nb::handle /*stream: a shared array's launches are complete*/, nb::handle max_version,
             nb::handle dl_device, nb::handle copy) { return dlpack_capsule(a, max_version, dl_device, copy); },
          nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
          nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("_dlpack_device", &dlpack_device_of)
      .def_prop_rw(
          "requires_grad", &Array::requires_grad, [](const Array& a, bool on) { a.set_requires_grad(on); },
          "Whether a tack.Tape records the launches that use the array (docs/autodiff.md)")
      .def_prop_ro(
          "grad", [](const Array& a) { return to_python(a.grad()); },
          "The gradient: an array of this dtype and shape, zero until a Tape's backward adds into it");

  m.def(
      "_array_from_ptr",
      [](const Device& d, std::uintptr_t address, DType dtype, const Shape& shape, nb::object keep_alive) {
        std::shared_ptr<void> hold;
        if (!keep_alive.is_none()) hold = std::make_shared<PyRef>(std::move(keep_alive));
        return to_python(array_from_ptr(d, address, dtype, shape, std::move(hold)));
      },
      nb::arg("device"), nb::arg("address"), nb::arg("dtype"), nb::arg("shape"), nb::arg("keep_alive").none());

  nb::class_<Texture>(m, "Texture",
                      "A 3-D f32 texture made by tack.texture3d: its own copy of an array, taken when it is made "
                      "and again at update(); kernels take it as a tack.Texture3D parameter and sample it "
                      "trilinearly. Writes to the array in between do not reach it.")
      .def("update", &Texture::update, nb::call_guard<nb::gil_scoped_release>(), "Copies the source array again.")
      .def_prop_ro(
          "shape",
          [](const Texture& t) {
            auto s = t.shape();
            return nb::make_tuple(s[0], s[1], s[2]);
          },
          "(width, height, depth).")
      .def_prop_ro(
          "device", [](const Texture& t) { return to_python(t.device()); }, "The tack.Device the texture lives on.");
  m.def("texture3d", [](const Array& a, const std::array<std::int64_t, 3>& shape) {
    nb::gil_scoped_release release;
    return tack::texture3d(a, shape);
  });
}

}  // namespace tack::python
