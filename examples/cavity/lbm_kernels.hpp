// The cavity's lattice-Boltzmann kernels (stream+collide, moments, residual
// terms). In a header so that the Python package's twin test builds the very
// kernels this demo runs (python/tests/twins/twins.cpp) and compares them with
// examples/python/cavity.py.
#pragma once

#include <tack/tack.hpp>

#include <vector>

namespace cavity {
namespace kernels {
using namespace tack::lang;

// D2Q9: velocity c_k, weight w_k and the opposite direction of each.
inline constexpr int kCx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
inline constexpr int kCy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
inline constexpr int kOpp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
inline constexpr float kW[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};

// The arrays hold g_k = f_k - w_k, the deviation from the fluid at rest. The
// deviations are small (|g| ~ 0.01), so f32 keeps ~3 more digits of them than
// of f itself; the residual then levels off lower and the corner eddies stay clean.

// Density deviation and momentum of one cell from its nine g's
// (sum_k w_k = 1 and sum_k w_k c_k = 0, so the w's drop out).
struct Moments {
  Value drho, rho, ux, uy;
};
inline Moments moments_of(const std::vector<Value>& g) {
  Value drho = g[0];
  for (int k = 1; k < 9; ++k) drho = drho + g[k];
  Value jx = (g[1] + g[5] + g[8]) - (g[3] + g[6] + g[7]);
  Value jy = (g[2] + g[5] + g[6]) - (g[4] + g[7] + g[8]);
  Value rho = 1.0f + drho;
  Value inv = 1.0f / rho;
  return {drho, rho, jx * inv, jy * inv};
}

// One cell's time step, pull scheme: the cell gathers the populations
// streaming into it, relaxes them towards equilibrium (BGK) and writes them to
// g_out. A population whose source is a wall is the cell's own opposite
// population from the previous step (half-way bounce-back); below the moving
// lid it also gains the lid's momentum, 6 w_k (c_k . u_lid) for density 1.
// Walls are handled with select, not branches: every cell runs the same
// straight-line code.
//
// y is the cell's row in the whole grid of ny rows, so the wall tests see the
// whole grid whatever part of it the arrays hold; row(r) maps a row of the
// whole grid to the arrays' row. The whole-grid kernel passes the identity;
// examples/mpi_cavity passes the shift into a slab with ghost rows, and so does
// exactly the same arithmetic per cell (its result is bitwise this one's).
template <class Row>
void stream_collide_cell(Array g_out, Array g_in, const Value& omega, const Value& lid_u, const Value& y,
                         const Value& x, const Value& ny, const Value& nx, Row row) {
  std::vector<Value> g;
  g.push_back(g_in(0, row(y), x));
  for (int k = 1; k < 9; ++k) {
    // Only the components that can leave the grid need a test and a clamp.
    Value sy = y - kCy[k], sx = x - kCx[k];
    std::vector<Value> inside;  // the tests that must all hold for the source to be fluid
    if (kCy[k] > 0) {
      inside.push_back(sy >= 0);
      sy = max(sy, 0);
    }
    if (kCy[k] < 0) {
      inside.push_back(sy < ny);
      sy = min(sy, ny - 1);
    }
    if (kCx[k] > 0) {
      inside.push_back(sx >= 0);
      sx = max(sx, 0);
    }
    if (kCx[k] < 0) {
      inside.push_back(sx < nx);
      sx = min(sx, nx - 1);
    }
    Value fluid = inside[0];
    for (std::size_t t = 1; t < inside.size(); ++t) fluid = fluid && inside[t];
    Value bounced = g_in(kOpp[k], row(y), x);  // w_k == w_opp, so g bounces like f
    if (kCy[k] < 0 && kCx[k] != 0)             // coming down from the lid: it carries the lid's momentum
      bounced = bounced + select(y + 1 >= ny, lid_u * (6.0f * kW[k] * static_cast<float>(kCx[k])), 0.0f);
    g.push_back(select(fluid, g_in(k, row(sy), sx), bounced));
  }

  Moments m = moments_of(g);
  Value usq15 = 1.5f * (m.ux * m.ux + m.uy * m.uy);
  for (int k = 0; k < 9; ++k) {
    Value cu = 3.0f * (static_cast<float>(kCx[k]) * m.ux + static_cast<float>(kCy[k]) * m.uy);
    // f_eq - w = w (rho - 1) + w rho (3 c.u + 4.5 (c.u)^2 - 1.5 u.u)
    Value geq = kW[k] * (m.drho + m.rho * (cu + 0.5f * cu * cu - usq15));
    g_out(k, row(y), x) = g[k] + omega * (geq - g[k]);
  }
}

// One time step of the whole grid.
inline tack::Kernel stream_collide_kernel() {
  return tack::kernel("lbm_stream_collide", [](Array g_out, Array g_in, Scalar omega, Scalar lid_u) {
    parallel_for({g_in.shape(1), g_in.shape(2)}, [&](Index y, Index x) {
      Value ny = g_in.shape(1), nx = g_in.shape(2);
      stream_collide_cell(g_out, g_in, omega, lid_u, y, x, ny, nx, [](const Value& r) { return r; });
    });
  });
}

// Density and velocity of every cell, for output and the residual.
inline tack::Kernel moments_kernel() {
  return tack::kernel("lbm_moments", [](Array rho, Array ux, Array uy, Array g_in) {
    parallel_for({g_in.shape(1), g_in.shape(2)}, [&](Index y, Index x) {
      std::vector<Value> g;
      for (int k = 0; k < 9; ++k) g.push_back(g_in(k, y, x));
      Moments m = moments_of(g);
      rho(y, x) = m.rho;
      ux(y, x) = m.ux;
      uy(y, x) = m.uy;
    });
  });
}

// Per-cell terms of the residual |u - u_prev|^2 and |u|^2; then u_prev = u.
// The host sums both with Array::sum.
inline tack::Kernel residual_terms_kernel() {
  return tack::kernel("lbm_residual_terms",
                      [](Array change2, Array magnitude2, Array ux_prev, Array uy_prev, Array ux, Array uy) {
                        parallel_for(ux.size(), [&](Index i) {
                          Value u = ux[i], v = uy[i];
                          Value du = u - ux_prev[i], dv = v - uy_prev[i];
                          change2[i] = du * du + dv * dv;
                          magnitude2[i] = u * u + v * v;
                          ux_prev[i] = u;
                          uy_prev[i] = v;
                        });
                      });
}

}  // namespace kernels
}  // namespace cavity
