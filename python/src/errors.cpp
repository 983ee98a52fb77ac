// C++ exceptions to Python: each tack::Error subclass raises its class from
// tack._errors (which derive from tack.Error and the builtin the reference
// raises), with the message unchanged; anything else raises RuntimeError.
#include "bindings.hpp"
#include "python_words.hpp"

#include <Python.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace tack::python {
namespace {

// The class for a C++ exception, looked up in tack._errors (imported once).
nb::handle error_class(const char* name) {
  // Never released: a static nb::object would be dropped after the interpreter is gone.
  static PyObject* module = nb::module_::import_("tack._errors").release().ptr();
  return nb::handle(nb::borrow(module).attr(name));  // the module keeps the class alive
}

// Each tack::Error reaches Python in Python's words (python_words.cpp).
template <class F>
void with_class(const std::exception_ptr& error, F&& use) {
  auto words = [](const Error& e) { return python_words(e.what()); };
  try {
    std::rethrow_exception(error);
  } catch (const BackendUnavailable& e) {
    use(error_class("BackendUnavailable"), words(e).c_str());
  } catch (const InvalidArgument& e) {
    use(error_class("InvalidArgument"), words(e).c_str());
  } catch (const TypeError& e) {
    use(error_class("TypeError"), words(e).c_str());
  } catch (const IndexError& e) {
    use(error_class("IndexError"), words(e).c_str());
  } catch (const CompileError& e) {
    use(error_class("CompileError"), words(e).c_str());
  } catch (const BackendError& e) {
    use(error_class("BackendError"), words(e).c_str());
  } catch (const NotDifferentiable& e) {
    use(error_class("NotDifferentiable"), words(e).c_str());
  } catch (const Error& e) {
    use(error_class("Error"), words(e).c_str());
  } catch (const std::bad_alloc&) {
    use(nb::handle(PyExc_MemoryError), "out of host memory");
  } catch (const std::exception& e) {
    use(nb::handle(PyExc_RuntimeError), e.what());
  }
}

}  // namespace

nb::object exception_object(const std::exception_ptr& error) {
  nb::object out;
  try {
    std::rethrow_exception(error);
  } catch (nb::python_error& e) {
    return nb::borrow(e.value());
  } catch (...) {
  }
  with_class(error, [&](nb::handle cls, const char* message) { out = cls(nb::str(message)); });
  return out;
}

namespace {
std::atomic<int> g_in_flight{0};
std::atomic<bool> g_closed{false};

// Runs in the main thread at exit, holding the GIL: closes the gate, then lets
// the calls in flight finish (they need the GIL), for at most a few seconds.
void close_gate() {
  g_closed.store(true);
  nb::gil_scoped_release release;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (g_in_flight.load() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
}  // namespace

bool enter_python() {
  g_in_flight.fetch_add(1);
  if (g_closed.load() || !Py_IsInitialized()) {
    g_in_flight.fetch_sub(1);
    return false;
  }
  return true;
}
void leave_python() { g_in_flight.fetch_sub(1); }

PyRef::~PyRef() {
  if (PyGILState_Check()) return;  // ~object() below drops the reference
  if (!enter_python()) {
    object.release();  // Python is exiting: leak rather than touch it
    return;
  }
  {
    nb::gil_scoped_acquire gil;
    object.reset();
  }
  leave_python();
}

void bind_errors(nb::module_& m) {
  m.def("_close_gate", &close_gate, "Called at exit (atexit): Tack's threads stop calling into Python.");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    // nanobind's own exceptions (python_error, next_overload, ...) are not ours to translate.
    try {
      std::rethrow_exception(p);
    } catch (const Error&) {
    } catch (const std::bad_alloc&) {
    } catch (const std::exception& e) {
      std::rethrow_exception(p);
    }
    with_class(p, [](nb::handle cls, const char* message) { PyErr_SetString(cls.ptr(), message); });
  });
}

}  // namespace tack::python
