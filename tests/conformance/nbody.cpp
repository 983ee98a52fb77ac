// The n-body example (examples/nbody/nbody_kernel.hpp, Vec3 throughout) against
// the same step computed on the host in double precision: a few steps of 200
// bodies agree within f32 rounding on every backend.
#include "conformance/backend_param.hpp"

#include "../../examples/nbody/nbody_kernel.hpp"

#include <cmath>
#include <vector>

using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(NBody);

TEST_P(NBody, StepsMatchTheHost) {
  const int n = 200, steps = 3;
  const float dt = 0.01f, eps2 = 0.05f;
  std::vector<float> pos(3 * n), vel(3 * n), mass(n);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      pos[3 * i + c] = static_cast<float>(std::sin(1.3 * i + 2.1 * c) * 2.0);
      vel[3 * i + c] = static_cast<float>(std::cos(0.7 * i + c) * 0.1);
    }
    mass[i] = 0.5f + static_cast<float>(i % 7) * 0.1f;
  }
  std::vector<double> hp(pos.begin(), pos.end()), hv(vel.begin(), vel.end());
  for (int s = 0; s < steps; ++s) {
    std::vector<double> np(hp.size());
    for (int i = 0; i < n; ++i) {
      double acc[3] = {0, 0, 0};
      for (int j = 0; j < n; ++j) {
        double d[3], r2 = eps2;
        for (int c = 0; c < 3; ++c) d[c] = hp[3 * j + c] - hp[3 * i + c], r2 += d[c] * d[c];
        const double w = mass[j] / (r2 * std::sqrt(r2));
        for (int c = 0; c < 3; ++c) acc[c] += d[c] * w;
      }
      for (int c = 0; c < 3; ++c) {
        hv[3 * i + c] += acc[c] * dt;
        np[3 * i + c] = hp[3 * i + c] + hv[3 * i + c] * dt;
      }
    }
    hp = np;
  }
  tack::Kernel step = nbody_kernel();
  tack::Array p = dev().from_host(pos, {n, 3}), q = dev().zeros(tack::DType::F32, {n, 3});
  tack::Array v = dev().from_host(vel, {n, 3}), m = dev().from_host(mass);
  for (int s = 0; s < steps; ++s) {
    step(q, v, p, m, dt, eps2);
    std::swap(p, q);
  }
  const std::vector<float> gp = p.to_host<float>(), gv = v.to_host<float>();
  for (int e = 0; e < 3 * n; ++e) {
    EXPECT_NEAR(gv[e], hv[e], 2e-4 * std::max(1.0, std::abs(hv[e]))) << "velocity " << e / 3 << "." << e % 3;
    EXPECT_NEAR(gp[e], hp[e], 2e-5 * std::max(1.0, std::abs(hp[e]))) << "position " << e / 3 << "." << e % 3;
  }
}

}  // namespace
