// tack_twins, a Python module built for the tests only (TACK_PYTHON_TWINS in
// python/CMakeLists.txt) and installed nowhere: C++ twins of kernels the Python
// tests write again in Python, for the test that both front ends give the same
// typed IR (and so share disk-cache entries). The cavity's and Mandelbrot's are
// the C++ examples' own kernels; the Python versions live in
// python/tests/test_twins.py and examples/python/. The kernels reach Python as
// tack._core.Kernel objects: this module shares nanobind's types with _core.
#include "cavity/lbm_kernels.hpp"
#include "mandelbrot/mandelbrot_kernel.hpp"
// Issue 29's twins: the n-body step with Vec3 and the path tracer (structs, returns, Random).
#include "local_sort/local_sort_kernel.hpp"
#include "nbody/nbody_kernel.hpp"
#include "path_tracer/path_tracer_kernel.hpp"

#include <tack/tack.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

// Outside namespace tack, so Array is the kernel language's, as in a user's file.
namespace twins {

using namespace tack::lang;
using tack::Kernel;

Kernel twin(const std::string& name) {
  if (name == "saxpy")
    return tack::kernel(
        "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  if (name == "jacobi")
    return tack::kernel("jacobi", [](Array out, Array in) {
      parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
        out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
      });
    });
  if (name == "lbm_stream_collide") return cavity::kernels::stream_collide_kernel();
  if (name == "lbm_moments") return cavity::kernels::moments_kernel();
  if (name == "lbm_residual_terms") return cavity::kernels::residual_terms_kernel();
  if (name == "mandelbrot") return mandelbrot_kernel();
  if (name == "histogram")
    return tack::kernel("histogram", [](ArrayOf<i32> bins, Array data) {
      parallel_for(data.size(), [&](Index i) {
        Value b = cast<i64>(data[i] * cast<f32>(bins.size()));
        atomic_add(bins, clamp(b, 0, bins.size() - 1), 1);
      });
    });
  if (name == "block_sum")
    return tack::kernel("block_sum", [](Array out, Array in) {
      workgroup_for(out.size(), [&](Group g) {
        Value i = g.global_id();
        SharedArray tile = g.shared<float>(256);
        tile[g.local_id()] = select(i < in.size(), in[min(i, in.size() - 1)], 0.0f);
        g.barrier();
        Value s = g.reduce_add(tile[g.local_id()]);
        if_(g.local_id() == 0, [&] { out[g.group_id()] = s; });
      });
    });
  if (name == "nbody_step") return nbody_kernel();
  if (name == "render") return path_tracer::render_kernel();
  if (name == "random_walk")
    return tack::kernel("random_walk", [](Array out, Scalar seed) {
      parallel_for(out.size(), [&](Index i) {
        Random rng(seed, i);
        Var x = rng.uniform();
        Var n = 0;
        while_([&] { return x < 0.9; },
               [&] {
                 x = rng.uniform();
                 n += 1;
               });
        Value z = rng.normal();
        out[i] = x + z + n;
      });
    });
  // examples/python/heat_inverse.py's step, whose adjoint test_twins compares too (issue 30, point 5).
  if (name == "heat_step")
    return tack::kernel("heat_step", [](Array out, Array u, Scalar alpha) {
      parallel_for({u.shape(0) - 2, u.shape(1) - 2}, [&](Index i, Index j) {
        Value c = u(i + 1, j + 1);
        out(i + 1, j + 1) = c + alpha * (u(i, j + 1) + u(i + 2, j + 1) + u(i + 1, j) + u(i + 1, j + 2) - 4.0 * c);
      });
    });
  // Per-work-item arrays (issue 29, point 3): an insertion sort of 16 values per row.
  if (name == "local_sort16") return local_sort::sort16_kernel();
  throw tack::InvalidArgument("no C++ twin named '" + name + "'");
}

}  // namespace twins

NB_MODULE(tack_twins, m) {
  m.doc() = "C++ twins of python/tests/test_twins.py's kernels (a test module, never installed)";
  m.def("kernel", &twins::twin, nanobind::arg("name"), "The C++-written kernel of this name.");
}
