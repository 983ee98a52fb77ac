// The density field kernel: a torus carved into a gyroid sponge.
#include "field.hpp"

using namespace tack::lang;

namespace volume {
namespace {

Value smoothstep(Value e0, Value e1, Value x) {
  Value t = clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

tack::Kernel field = tack::kernel("volume_field", [](Array density, Scalar time) {
  parallel_for({density.shape(0), density.shape(1), density.shape(2)}, [&](Index iz, Index iy, Index ix) {
    Value scale = 2.0f / cast<f32>(density.shape(0) - 1);
    Value x = cast<f32>(ix) * scale - 1.0f, y = cast<f32>(iy) * scale - 1.0f, z = cast<f32>(iz) * scale - 1.0f;
    // Signed distance to a torus around the y axis (radii 0.62 and 0.27) ...
    Value ring = sqrt(x * x + z * z) - 0.62f;
    Value torus = sqrt(ring * ring + y * y) - 0.27f;
    // ... carved into a gyroid sponge: |gyroid| / k approximates the distance to
    // the gyroid's surface, so this keeps a sheet of it ~0.07 (4.5 texels at 128^3) thick. Time moves
    // the gyroid through the torus.
    const float k = 9.0f;
    Value gx = k * x + time, gy = k * y + 0.5f * time, gz = k * z;
    Value gyroid = sin(gx) * cos(gy) + sin(gy) * cos(gz) + sin(gz) * cos(gx);
    Value sheet = abs(gyroid) / (1.4f * k) - 0.035f;
    density(iz, iy, ix) = smoothstep(0.03f, -0.03f, max(torus, sheet));
  });
});

}  // namespace

void fill_field(tack::Array& density, float time) { field(density, time); }

}  // namespace volume
