// Reference data: Ghia, Ghia & Shin, "High-Re solutions for incompressible flow
// using the Navier-Stokes equations and a multigrid method", J. Comput. Phys. 48
// (1982) 387-411, Table I: u/U along the vertical line through the cavity's
// centre, on their 129 x 129 grid.
#pragma once

#include <array>

namespace cavity {

constexpr std::array<double, 17> kGhiaY = {0.0000, 0.0547, 0.0625, 0.0703, 0.1016, 0.1719, 0.2813, 0.4531, 0.5000,
                                           0.6172, 0.7344, 0.8516, 0.9531, 0.9609, 0.9688, 0.9766, 1.0000};

// Returns the u/U column for Re = 100, 400 or 1000, or nullptr for another Re.
inline const std::array<double, 17>* ghia_u(int re) {
  static constexpr std::array<double, 17> re100 = {0.00000,  -0.03717, -0.04192, -0.04775, -0.06434, -0.10150,
                                                   -0.15662, -0.21090, -0.20581, -0.13641, 0.00332,  0.23151,
                                                   0.68717,  0.73722,  0.78871,  0.84123,  1.00000};
  static constexpr std::array<double, 17> re400 = {0.00000,  -0.08186, -0.09266, -0.10338, -0.14612, -0.24299,
                                                   -0.32726, -0.17119, -0.11477, 0.02135,  0.16256,  0.29093,
                                                   0.55892,  0.61756,  0.68439,  0.75837,  1.00000};
  static constexpr std::array<double, 17> re1000 = {0.00000,  -0.18109, -0.20196, -0.22220, -0.29730, -0.38289,
                                                    -0.27805, -0.10648, -0.06080, 0.05702,  0.18719,  0.33304,
                                                    0.46604,  0.51117,  0.57492,  0.65928,  1.00000};
  switch (re) {
    case 100: return &re100;
    case 400: return &re400;
    case 1000: return &re1000;
    default: return nullptr;
  }
}

}  // namespace cavity
