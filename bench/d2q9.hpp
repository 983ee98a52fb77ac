// D2Q9 lattice Boltzmann: the lattice and the BGK collision, written once as
// a template so the C++ version (V = float) and the traced Tack kernel
// (V = tack::lang::Value) compute the same formulas in the same order.
#pragma once

#include <array>
#include <cstdint>

namespace bench::d2q9 {

// Directions: 0 rest, 1 E, 2 N, 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE; x is the
// column j, y the row i. f is one [9][n][n] array.
constexpr int kEx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
constexpr int kEy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
constexpr float kW[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};

// e_k . u without multiplications by 0 or +-1, so both sides compute the same.
template <class V>
V edot(int ex, int ey, const V& ux, const V& uy) {
  if (ex == 0) return ey > 0 ? uy : -uy;
  V x = ex > 0 ? ux : -ux;
  if (ey == 0) return x;
  return ey > 0 ? x + uy : x - uy;
}

// BGK collision of one cell's nine populations, in place. The same template
// builds the C++ arithmetic (V = float) and the traced Tack expression (V = Value).
template <class V>
void bgk(std::array<V, 9>& f, const V& omega) {
  V rho = f[0];
  for (int k = 1; k < 9; ++k) rho = rho + f[k];
  V jx = (f[1] - f[3]) + (f[5] - f[6]) + (f[8] - f[7]);
  V jy = (f[2] - f[4]) + (f[5] + f[6]) - (f[7] + f[8]);
  V ux = jx / rho, uy = jy / rho;
  V usq = V(1.5f) * (ux * ux + uy * uy);
  for (int k = 0; k < 9; ++k) {
    V feq = [&]() -> V {
      if (k == 0) return V(kW[k]) * rho * (V(1.0f) - usq);
      V cu = V(3.0f) * edot(kEx[k], kEy[k], ux, uy);
      return V(kW[k]) * rho * (V(1.0f) + cu + V(0.5f) * cu * cu - usq);
    }();
    f[k] = f[k] + omega * (feq - f[k]);
  }
}

}  // namespace bench::d2q9
