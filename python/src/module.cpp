// tack._core: the native half of the Python package (see tack/_core.pyi).
#include "bindings.hpp"

NB_MODULE(_core, m) {
  using namespace tack::python;
  m.doc() = "Tack's C++ core: devices, arrays and the kernel tracing API (use the tack package)";
  // Objects a program keeps until exit (devices, arrays in module globals, kernels
  // whose functions refer to those globals) are still alive when nanobind checks
  // for leaks at shutdown; that is the program's choice, not a leak.
  nb::set_leak_warnings(false);
  bind_errors(m);
  bind_scalars(m);
  bind_host(m);
  bind_classes(m);
  bind_dlpack(m);
  bind_values(m);
  bind_statements(m);
  bind_random(m);
  bind_about(m);
  bind_kernels(m);
  bind_global_guards(m);
}
