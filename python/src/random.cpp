// Random numbers from Python: tack.philox4x32 and tack.Random are the C++ kernel
// language's (<tack/random.hpp>), so a Python kernel traces the same IR as its C++
// twin. The tracer (tack/_frontend) calls these; dtypes arrive as DTypes.
#include "bindings.hpp"

#include "api/frontend.hpp"

#include <nanobind/stl/string.h>

namespace tack::python {

void bind_random(nb::module_& m) {
  m.def("philox4x32", [](nb::handle c0, nb::handle c1, nb::handle c2, nb::handle c3, nb::handle k0, nb::handle k1) {
    auto w = lang::philox4x32(to_value(c0), to_value(c1), to_value(c2), to_value(c3), to_value(k0), to_value(k1));
    return nb::make_tuple(w[0], w[1], w[2], w[3]);
  });
  nb::class_<lang::Random>(m, "Random",
                           "rng = tack.Random(seed, stream) inside a kernel: a Philox4x32-10 random stream (one per "
                           "stream value, typically the work-item index) whose draws are the same bits on every "
                           "backend (docs/language.md, \"Random numbers\"). Kernel language only.")
      .def(
          "__init__",
          [](lang::Random* self, nb::handle seed, nb::handle stream) {
            new (self) lang::Random(to_value(seed), to_value(stream));
          },
          nb::arg("seed"), nb::arg("stream"))
      .def(
          "next_u32", [](lang::Random& r) { return r.next_u32(); }, "The next 32-bit word, a uint32 Value.")
      .def(
          "uniform", [](lang::Random& r, DType dtype) { return r.uniform(dtype); }, nb::arg("dtype") = DType::F32,
          nb::sig("def uniform(self, dtype=numpy.float32)"),
          "A float in [0, 1), float32 (one word) or float64 (two words): exact, the same bits everywhere.")
      .def(
          "normal", [](lang::Random& r, DType dtype) { return r.normal(dtype); }, nb::arg("dtype") = DType::F32,
          nb::sig("def normal(self, dtype=numpy.float32)"), "A standard normal (Box-Muller), float32 or float64.")
      .def(
          "integers",
          [](lang::Random& r, nb::handle lo, nb::handle hi) { return r.integers(to_value(lo), to_value(hi)); },
          nb::arg("lo"), nb::arg("hi"),
          "An int64 in [lo, hi) from one word (multiply-shift, no rejection); hi - lo is at most 2**32 and "
          "hi <= lo gives lo.");
}

}  // namespace tack::python
