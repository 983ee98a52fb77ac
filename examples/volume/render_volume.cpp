// The ray-marching kernel: front-to-back emission-absorption through the
// volume [-1, 1]^3, shaded with the texture's gradient as the surface normal.
#include "render_volume.hpp"

#include <cmath>
#include <vector>

using namespace tack::lang;

namespace volume {
namespace {

constexpr float kDensity = 60.0f;  // extinction per unit length at density 1

tack::Kernel march = tack::kernel("volume_march", [](Array image, Texture3D tex, Scalar ox, Scalar oy, Scalar oz,
                                                     Array basis, Scalar step, Scalar max_steps) {
  parallel_for({image.shape(0), image.shape(1)}, [&](Index row, Index col) {
    // basis holds the camera's right, up and forward vectors (already scaled
    // by the field of view), 9 floats.
    Value h = cast<f32>(image.shape(0)), w = cast<f32>(image.shape(1));
    Value sx = (2.0f * (cast<f32>(col) + 0.5f) - w) / h;  // square pixels
    Value sy = 1.0f - 2.0f * (cast<f32>(row) + 0.5f) / h;
    Value dx = basis[6] + sx * basis[0] + sy * basis[3];
    Value dy = basis[7] + sx * basis[1] + sy * basis[4];
    Value dz = basis[8] + sx * basis[2] + sy * basis[5];
    Value inv_len = rsqrt(dx * dx + dy * dy + dz * dz);
    dx = dx * inv_len;
    dy = dy * inv_len;
    dz = dz * inv_len;

    // Where the ray enters and leaves the box (slab method; 1/0 = inf is fine).
    Value ax = (-1.0f - ox) / dx, bx = (1.0f - ox) / dx;
    Value ay = (-1.0f - oy) / dy, by = (1.0f - oy) / dy;
    Value az = (-1.0f - oz) / dz, bz = (1.0f - oz) / dz;
    Value t_in = max(max(max(min(ax, bx), min(ay, by)), min(az, bz)), 0.0f);
    Value t_out = min(min(max(ax, bx), max(ay, by)), max(az, bz));

    // Start each ray a pseudo-random fraction of a step in: the fixed step would
    // otherwise alias with thin sheets into wood-grain bands; jitter turns them
    // into fine noise. (A sine hash: no tables, same on every backend.)
    Value hash = sin(cast<f32>(col) * 12.9898f + cast<f32>(row) * 78.233f) * 43758.547f;
    Value jitter = hash - floor(hash);

    Var r = 0.0f, g = 0.0f, b = 0.0f;              // colour gathered so far
    Var trans = 1.0f;                              // transmittance to the camera
    const float light[3] = {0.48f, 0.75f, 0.45f};  // towards the light, normalised below
    const float ln = std::sqrt(light[0] * light[0] + light[1] * light[1] + light[2] * light[2]);
    for_range(0, max_steps, [&](Index i) {
      Value t = t_in + (cast<f32>(i) + jitter) * step;
      if_(t > t_out || trans < 0.01f, [&] { break_(); });  // left the box, or opaque
      Value u = 0.5f * (ox + t * dx + 1.0f), v = 0.5f * (oy + t * dy + 1.0f), s = 0.5f * (oz + t * dz + 1.0f);
      Value dens = tex.sample(u, v, s);
      if_(dens > 0.002f, [&] {
        // Central differences of the density; the normal points out of the
        // dense region, against the gradient.
        const float e = 0.012f;
        Value nx = tex.sample(u - e, v, s) - tex.sample(u + e, v, s);
        Value ny = tex.sample(u, v - e, s) - tex.sample(u, v + e, s);
        Value nz = tex.sample(u, v, s - e) - tex.sample(u, v, s + e);
        Value inv = rsqrt(nx * nx + ny * ny + nz * nz + 1e-12f);
        Value lambert = max((nx * light[0] + ny * light[1] + nz * light[2]) * inv / ln, 0.0f);
        Value shade = 0.22f + 0.85f * lambert;
        // Colour from height: deep red at the bottom to amber at the top.
        Value hgt = clamp(v, 0.0f, 1.0f);
        Value alpha = 1.0f - exp(-kDensity * step * dens);
        Value weight = trans * alpha * shade;
        r += weight * (0.95f);
        g += weight * (0.25f + 0.5f * hgt);
        b += weight * (0.12f + 0.18f * hgt);
        trans *= 1.0f - alpha;
      });
    });
    // A dark vertical gradient behind the volume.
    Value bg = 0.06f + 0.10f * (1.0f - cast<f32>(row) / h);
    image(row, col, 0) = r + trans * bg;
    image(row, col, 1) = g + trans * bg;
    image(row, col, 2) = b + trans * (bg + 0.05f);
  });
});

}  // namespace

void render_volume(tack::Texture& tex, const Camera& cam, tack::Array& image, float step) {
  tex.update();  // the texture holds a copy: take the array's current contents
  // Camera frame on the host: a position on a sphere looking at the origin.
  const float ox = cam.distance * std::cos(cam.elevation) * std::sin(cam.azimuth);
  const float oy = cam.distance * std::sin(cam.elevation);
  const float oz = cam.distance * std::cos(cam.elevation) * std::cos(cam.azimuth);
  const float inv = 1.0f / cam.distance;
  const float f[3] = {-ox * inv, -oy * inv, -oz * inv};  // forward
  float rx = -f[2], rz = f[0];                           // right = forward x up(0,1,0)
  const float rl = std::sqrt(rx * rx + rz * rz);
  rx /= rl;
  rz /= rl;
  const float u[3] = {-rz * f[1], rz * f[0] - rx * f[2], rx * f[1]};  // up = right x forward
  const float k = std::tan(0.5f * cam.fov);
  const std::vector<float> basis = {rx * k, 0.0f, rz * k, u[0] * k, u[1] * k, u[2] * k, f[0], f[1], f[2]};
  tack::Array b = image.device().from_host(basis);
  // Enough steps to cross the box's diagonal (2 sqrt 3 < 3.5).
  const int max_steps = static_cast<int>(std::ceil(3.5f / step));
  march(image, tex, ox, oy, oz, b, step, max_steps);
}

}  // namespace volume
