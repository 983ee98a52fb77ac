// A D2Q9 lattice-Boltzmann solver for the lid-driven cavity, run by Tack kernels.
#pragma once

#include <tack/tack.hpp>

#include <cstdint>
#include <vector>

namespace cavity {

// Velocity field on the host, row-major {n, n}; row 0 is the bottom row of cells,
// the lid moves along +x above row n - 1. In lattice units.
struct Velocity {
  std::int64_t n = 0;
  std::vector<float> ux, uy;
  float u(std::int64_t row, std::int64_t col) const { return ux[row * n + col]; }
  float v(std::int64_t row, std::int64_t col) const { return uy[row * n + col]; }
};

class Lattice {
 public:
  // n x n cells with walls on all four sides (half-way bounce-back) and a lid at
  // the top moving at lid_u; BGK relaxation time tau. Starts at rest, density 1.
  Lattice(tack::Device dev, std::int64_t n, float lid_u, float tau);

  // Advances count time steps (one stream+collide launch each).
  void step(std::int64_t count);
  std::int64_t steps_done() const { return steps_; }

  // Relative change of the velocity field since the previous call:
  // ||u - u_prev||_2 / ||u||_2 over all cells. The first call returns 1.
  double residual();

  Velocity velocity();  // copies the current velocity field to the host
  // g = f - w, f32 {9, n, n}: what examples/mpi_cavity compares with, bit for bit.
  const tack::Array& populations() const { return f_; }

 private:
  void update_moments();

  tack::Device dev_;
  std::int64_t n_;
  float lid_u_, omega_;
  tack::Array f_, f_next_;            // f32 {9, n, n}: f_k - w_k, post-collision
  tack::Array ux_, uy_, rho_;         // f32 {n, n}: moments of f_
  tack::Array ux_prev_, uy_prev_;     // the velocity at the last residual()
  tack::Array change2_, magnitude2_;  // f32 {n, n}: per-cell terms of the residual
  std::int64_t steps_ = 0;
  bool have_prev_ = false;
};

}  // namespace cavity
