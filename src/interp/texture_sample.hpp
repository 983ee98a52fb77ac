// Trilinear sampling of a Texture3D at normalized coordinates (0 and 1 are the centres of the edge texels).
#pragma once

#include "interp/interpreter.hpp"

namespace tack::interp {

// Interpolates in f32. Coordinates are clamped to [0, 1]; a NaN coordinate counts as 0.
// The texture must have at least one texel along each axis.
float texture_sample(const TextureArg& t, float u, float v, float w);

}  // namespace tack::interp
