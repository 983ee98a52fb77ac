// C++ structs in kernels (issue 29, point 2): plain aggregates of Values as
// locals, helper arguments and return values; VarOf<T> assigned inside traced
// control flow; and one kernel parameter bundling arrays and scalars, called with
// tack::bundle(...). All lower to the scalar IR every backend has.
#include "conformance/backend_param.hpp"

#include <tack/var_of.hpp>

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Structs);

struct Point {
  Value x, y;
};
struct Segment {
  Point a, b;
  Value weight;
};

// A struct argument and a struct result: plain C++.
Point midpoint(const Segment& s) { return {(s.a.x + s.b.x) * 0.5f, (s.a.y + s.b.y) * 0.5f}; }

static_assert(tack::reflect::field_count<Point> == 2);
static_assert(tack::reflect::field_count<Segment> == 3);

TEST_P(Structs, LocalsArgumentsAndReturns) {
  auto k = tack::kernel("struct_locals", [](Array out, Array x) {
    parallel_for(out.size() / 2, [&](Index i) {
      Segment s{{x[i], 0.0f}, {1.0f, x[i] * 2.0f}, 3.0f};
      Point m = midpoint(s);
      out[i * 2] = m.x * s.weight;
      out[i * 2 + 1] = m.y;
    });
  });
  std::vector<float> x = {0.0f, 1.0f, -2.0f, 4.5f};
  std::vector<float> want;
  for (float v : x) {
    want.push_back((v + 1.0f) * 0.5f * 3.0f);
    want.push_back((0.0f + v * 2.0f) * 0.5f);
  }
  tack::Array out = dev().zeros(tack::DType::F32, {8});
  k(out, dev().from_host(x));
  compare_exact("struct locals", backend(), out.to_host<float>(), "expected", want);
}

// VarOf: a whole struct assigned in if_ and for_range bodies.
TEST_P(Structs, VarOfAssignedInTracedControlFlow) {
  auto k = tack::kernel("struct_var", [](Array out, Array x, Scalar n) {
    parallel_for(out.size() / 2, [&](Index i) {
      VarOf<Point> p(Point{x[i], 0.0f});
      for_range(0, n, [&](Index j) {
        Point q = p;
        p = Point{q.y + 1.0f, q.x};  // swap, then add 1 to the new x
        if_(cast<float>(j) > q.x, [&] { p = Point{Value(p.get().x), q.y * 2.0f}; });
      });
      Point r = p;
      out[i * 2] = r.x;
      out[i * 2 + 1] = r.y;
    });
  });
  std::vector<float> x = {0.0f, 1.5f, -3.0f, 10.0f};
  const std::int64_t n = 5;
  std::vector<float> want;
  for (float v : x) {
    float px = v, py = 0.0f;
    for (std::int64_t j = 0; j < n; ++j) {
      float qx = px, qy = py;
      px = qy + 1.0f;
      py = qx;
      if (static_cast<float>(j) > qx) py = qy * 2.0f;
    }
    want.push_back(px);
    want.push_back(py);
  }
  tack::Array out = dev().zeros(tack::DType::F32, {8});
  k(out, dev().from_host(x), n);
  compare_exact("VarOf<Point>", backend(), out.to_host<float>(), "expected", want);
}

// One parameter bundling arrays and scalars.
struct State {
  Array pos;
  Array vel;
  Scalar dt;
};
struct Forces {
  ArrayOf<float> f;
  ScalarOf<float> mass;
};

TEST_P(Structs, ABundledStateParameter) {
  auto step = tack::kernel("struct_step", [](State s, Forces g, Scalar damping) {
    parallel_for(s.pos.size(), [&](Index i) {
      Value v = s.vel[i] * damping + g.f[i] / g.mass * s.dt;
      s.vel[i] = v;
      s.pos[i] = s.pos[i] + v * s.dt;
    });
  });
  std::vector<float> pos = {0.0f, 1.0f, 2.0f, 3.0f}, vel = {1.0f, -1.0f, 0.5f, 0.0f}, f = {2.0f, 4.0f, -2.0f, 8.0f};
  const float dt = 0.5f, mass = 2.0f, damping = 0.75f;
  std::vector<float> want_pos, want_vel;
  for (std::size_t i = 0; i < pos.size(); ++i) {
    float a = f[i] / mass;
    float adt = a * dt;
    float v = vel[i] * damping;
    v = v + adt;
    float vdt = v * dt;
    want_vel.push_back(v);
    want_pos.push_back(pos[i] + vdt);
  }
  tack::Array p = dev().from_host(pos), v = dev().from_host(vel), fa = dev().from_host(f);
  step(tack::bundle(p, v, dt), tack::bundle(fa, mass), damping);
  // The products are added (fp_contract may fuse them): within an ulp or two of the unfused values.
  compare_ulp("pos", backend(), p.to_host<float>(), "expected", want_pos, 2);
  compare_ulp("vel", backend(), v.to_host<float>(), "expected", want_vel, 2);
}

// Vectors in structs: a VarOf<Body> with Vec3 fields stepped in a loop, and a struct parameter whose fields are
// arrays of vec3.
struct Body {
  Vec3 pos;
  Vec3 vel;
  Value alive;
};
struct Particles {
  ArrayOf<Vec3> pos;
  ArrayOf<Vec3> vel;
  Scalar dt;
};

TEST_P(Structs, VectorFieldsInVarsAndInParameters) {
  auto fly = tack::kernel("struct_vec_fly", [](Particles p, Scalar steps) {
    parallel_for(p.pos.shape(0), [&](Index i) {
      VarOf<Body> b(Body{p.pos[i], p.vel[i], true});
      for_range(0, steps, [&](Index) {
        const Body now = b;
        const Vec3 vel = now.vel + vec3(0.0f, -1.0f, 0.0f) * p.dt;  // gravity
        const Vec3 pos = now.pos + vel * p.dt;
        b = Body{pos, vel, now.alive && pos.y > 0.0f};
      });
      const Body end = b;
      p.pos[i] = end.pos;
      p.vel[i] = select(end.alive, end.vel, vec3(0.0f, 0.0f, 0.0f));
    });
  });
  const int n = 5, steps = 4;
  const float dt = 0.25f;
  std::vector<float> pos = {0, 1, 0, 1, 2, 3, 0, 0.1f, 0, 4, 5, 6, -1, 0.5f, 1}, vel(3 * n, 0.5f);
  std::vector<float> want_pos = pos, want_vel = vel;
  int fallen = 0;
  for (int i = 0; i < n; ++i) {
    bool alive = true;
    for (int s = 0; s < steps; ++s) {
      want_vel[3 * i + 1] = want_vel[3 * i + 1] + -1.0f * dt;
      for (int c = 0; c < 3; ++c) want_pos[3 * i + c] = want_pos[3 * i + c] + want_vel[3 * i + c] * dt;
      alive = alive && want_pos[3 * i + 1] > 0.0f;
    }
    if (!alive) {
      ++fallen;
      for (int c = 0; c < 3; ++c) want_vel[3 * i + c] = 0.0f;
    }
  }
  tack::Array dp = dev().from_host(pos, {n, 3}), dv = dev().from_host(vel, {n, 3});
  fly(tack::bundle(dp, dv, dt), steps);
  compare_ulp("pos", backend(), dp.to_host<float>(), "expected", want_pos, 2);
  compare_ulp("vel", backend(), dv.to_host<float>(), "expected", want_vel, 2);
  EXPECT_EQ(fallen, 1) << "body 2 falls below y = 0 at the last step, the others stay above";
}

}  // namespace

namespace {

// tack::inspect and precompile take bundles too: the struct's fields are the kernel's first parameters.
TEST(StructParameters, InspectAndPrecompileTakeBundles) {
  auto k = tack::kernel("struct_inspect", [](State s) {
    parallel_for(s.pos.size(), [&](Index i) { s.pos[i] = s.vel[i] * s.dt; });
  });
  tack::Inspection in = tack::inspect(
      k, "interp", tack::bundle(tack::ArraySpec{tack::DType::F32, 1}, tack::ArraySpec{tack::DType::F32, 1}, 0.5f));
  EXPECT_NE(in.typed_ir.find("kernel struct_inspect(%0: Array<f32, rank 1>, %1: Array<f32, rank 1>, %2: Scalar<f32>)"),
            std::string::npos)
      << in.typed_ir;
  k.precompile(tack::device("interp"),
               tack::bundle(tack::ArraySpec{tack::DType::F32, 1}, tack::ArraySpec{tack::DType::F32, 1}, 0.5f));
}

}  // namespace
