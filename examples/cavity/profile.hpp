// The centreline profile u/U(y) and its comparison with Ghia et al.: linear
// interpolation at their y, a CSV and a plot.
#pragma once

#include "lbm.hpp"

#include <array>
#include <string>
#include <vector>

namespace cavity {

// u/U along the vertical line x = 0.5, in cavity units (walls at y = 0 and 1):
// the cell centres plus the two wall values.
struct Profile {
  std::vector<double> y, u;
  double at(double y) const;  // linear interpolation
};

Profile centreline(const Velocity& vel, double lid_u);

struct Comparison {
  std::array<double, 17> tack_u{};  // the profile at Ghia's y
  double max_deviation = 0;
  double worst_y = 0;
};
Comparison compare_with_ghia(const Profile& p, const std::array<double, 17>& ghia);

bool write_csv(const std::string& path, const Profile& p, const std::array<double, 17>* ghia);

// A plot of u/U against y with Ghia's points (when given) as circles.
bool plot_profile(const std::string& path, const Profile& p, const std::array<double, 17>* ghia,
                  const std::string& title);

}  // namespace cavity
