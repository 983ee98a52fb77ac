// An all-pairs n-body simulation with Tack's Vec3 (examples/nbody/nbody_kernel.hpp):
// a cold disc of bodies, stepped on the default device, printing the total
// momentum (which gravity between pairs keeps at zero) and the disc's radius.
//
//   tack_nbody [bodies] [steps]
#include "nbody_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  std::vector<float> pos(3 * n), vel(3 * n), mass(n, 1.0f / static_cast<float>(n));
  for (int i = 0; i < n; ++i) {
    const float r = std::sqrt((i + 0.5f) / n), a = 2.39996323f * static_cast<float>(i);  // golden angle
    pos[3 * i] = r * std::cos(a);
    pos[3 * i + 1] = r * std::sin(a);
    pos[3 * i + 2] = 0.01f * std::sin(7.0f * a);
    vel[3 * i] = -0.5f * pos[3 * i + 1];
    vel[3 * i + 1] = 0.5f * pos[3 * i];
  }
  tack::Device dev = tack::device();  // TACK_DEVICE, else the default
  tack::Kernel step = nbody_kernel();
  tack::Array p = dev.from_host(pos, {n, 3}), q = dev.empty(tack::DType::F32, {n, 3});
  tack::Array v = dev.from_host(vel, {n, 3}), m = dev.from_host(mass);
  for (int s = 0; s < steps; ++s) {
    step(q, v, p, m, 0.001f, 0.01f);
    std::swap(p, q);
  }
  pos = p.to_host<float>();
  vel = v.to_host<float>();
  double momentum[3] = {0, 0, 0}, radius = 0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) momentum[c] += mass[i] * vel[3 * i + c];
    radius = std::max(radius, static_cast<double>(std::hypot(pos[3 * i], pos[3 * i + 1])));
  }
  std::printf("%d bodies, %d steps on %s: momentum (%.2e, %.2e, %.2e), radius %.4f\n", n, steps, dev.name().c_str(),
              momentum[0], momentum[1], momentum[2], radius);
}
