// The procedural density field that the volume example renders.
#pragma once

#include <tack/tack.hpp>

namespace volume {

// Fills density (f32, shape {n, n, n}, indexed (z, y, x)) with a torus carved
// into a gyroid sponge that drifts with time; values 0..1. Texel i
// sits at -1 + 2 i / (n - 1) on each axis, matching texture3d's convention that
// coordinate 0 is the first texel's centre and 1 the last's.
void fill_field(tack::Array& density, float time);

}  // namespace volume
