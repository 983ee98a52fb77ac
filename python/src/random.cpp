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
  nb::class_<lang::Random>(m, "Random")
      .def("__init__", [](lang::Random* self, nb::handle seed,
                          nb::handle stream) { new (self) lang::Random(to_value(seed), to_value(stream)); })
      .def("next_u32", [](lang::Random& r) { return r.next_u32(); })
      .def("uniform", [](lang::Random& r, DType dtype) { return r.uniform(dtype); }, nb::arg("dtype") = DType::F32)
      .def("normal", [](lang::Random& r, DType dtype) { return r.normal(dtype); }, nb::arg("dtype") = DType::F32)
      .def("integers", [](lang::Random& r, nb::handle lo, nb::handle hi) { return r.integers(to_value(lo), to_value(hi)); },
           nb::arg("lo"), nb::arg("hi"));
}

}  // namespace tack::python
