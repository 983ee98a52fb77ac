// The picture of the flow: speed as colour, streamlines as contours of the
// stream function, arrowheads for the direction.
#pragma once

#include "lbm.hpp"

#include <string>

namespace cavity {

bool draw_flow(const std::string& path, const Velocity& vel, double lid_u, const std::string& title);

}  // namespace cavity
