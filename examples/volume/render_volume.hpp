// Ray marching a 3-D texture into an RGB image.
#pragma once

#include <tack/tack.hpp>

namespace volume {

struct Camera {
  float azimuth = 0.6f;    // radians around the vertical axis
  float elevation = 0.7f;  // radians above the horizontal plane
  float distance = 3.2f;   // from the volume's centre; the volume spans [-1, 1]^3
  float fov = 0.75f;       // vertical field of view, radians
};

// Renders the texture into image (f32, shape {height, width, 3}, values 0..1).
// Calls tex.update() first, so the render sees the texture's array as it is now:
// the array may change between renders. step is the ray-marching step in volume
// units (the volume is 2 wide); ~half a texel gives clean pictures.
void render_volume(tack::Texture& tex, const Camera& cam, tack::Array& image, float step = 0.0075f);

}  // namespace volume
