// The kernels of one rank's slab: the cavity's stream+collide on some of the
// slab's rows, and the packing of the halo rows into, and out of, the
// contiguous arrays that MPI sends and receives.
#pragma once

#include "cavity/lbm_kernels.hpp"

#include <tack/tack.hpp>

namespace mpi_cavity {
using namespace tack::lang;

// A slab holds rows y0 .. y0 + rows - 1 of the whole grid (ny rows) as array
// rows 1 .. rows of g {9, rows + 2, nx}; rows 0 and rows + 1 are ghost rows,
// copies of the neighbours' edge rows. The kernel updates `count` array rows
// first, first + stride, ...: the inside of the slab while the halo is on its
// way, then the two edge rows once it is here. Each cell runs the whole-grid
// kernel's code (cavity::kernels::stream_collide_cell) with its global row, so
// walls and lid are where they are in the whole grid and the arithmetic is the
// same, bit for bit.
inline tack::Kernel slab_stream_collide_kernel() {
  return tack::kernel("lbm_slab_stream_collide", [](Array g_out, Array g_in, Scalar omega, Scalar lid_u, Scalar y0,
                                                    Scalar ny, Scalar first, Scalar stride, Scalar count) {
    parallel_for({count, g_in.shape(2)}, [&](Index i, Index x) {
      Value y = y0 + (first + i * stride) - 1;  // the cell's global row
      Value nx = g_in.shape(2);
      cavity::kernels::stream_collide_cell(g_out, g_in, omega, lid_u, y, x, ny, nx,
                                           [&](const Value& r) { return r - y0 + 1; });
    });
  });
}

// halo {2, 9, nx} = the slab's bottom and top rows (array rows 1 and rows), so
// that each is one contiguous message.
inline tack::Kernel halo_pack_kernel() {
  return tack::kernel("halo_pack", [](Array halo, Array g) {
    parallel_for({halo.shape(1), halo.shape(2)}, [&](Index k, Index x) {
      halo(0, k, x) = g(k, 1, x);
      halo(1, k, x) = g(k, g.shape(1) - 2, x);
    });
  });
}

// The ghost rows (array rows 0 and rows + 1) = the received halo {2, 9, nx}.
inline tack::Kernel halo_unpack_kernel() {
  return tack::kernel("halo_unpack", [](Array g, Array halo) {
    parallel_for({halo.shape(1), halo.shape(2)}, [&](Index k, Index x) {
      g(k, 0, x) = halo(0, k, x);
      g(k, g.shape(1) - 1, x) = halo(1, k, x);
    });
  });
}

}  // namespace mpi_cavity
