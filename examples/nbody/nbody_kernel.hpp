// One step of an all-pairs n-body simulation written with Vec3: softened
// gravity (G = 1), then a semi-implicit Euler update. In a header so that the
// tests (tests/conformance/nbody.cpp), the benchmark (bench/nbody.cpp) and the
// Python twin build this very kernel.
#pragma once

#include <tack/tack.hpp>

inline tack::Kernel nbody_kernel() {
  using namespace tack::lang;
  // pos, vel: (n, 3); mass: (n,). Writes the new velocities in place and the new positions to pos_out,
  // so that every work-item reads the old positions.
  return tack::kernel("nbody_step", [](ArrayOf<Vec3> pos_out, ArrayOf<Vec3> vel, ArrayOf<Vec3> pos, Array mass,
                                       Scalar dt, Scalar eps2) {
    parallel_for(pos.shape(0), [&](Index i) {
      const Vec3 p = pos[i];
      Vec3Var acc = vec3(0.0, 0.0, 0.0);
      for_range(0, pos.shape(0), [&](Index j) {
        const Vec3 d = Vec3(pos[j]) - p;
        const Value inv_r = rsqrt(dot(d, d) + eps2);
        acc += d * (mass[j] * inv_r * inv_r * inv_r);
      });
      const Vec3 v = Vec3(vel[i]) + acc * dt;
      vel[i] = v;
      pos_out[i] = p + v * dt;
    });
  });
}
