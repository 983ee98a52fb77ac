// Differentiable kernels (docs/autodiff.md): every derivative rule checked on every backend against central
// differences of the kernel itself in f64, and forward mode against reverse mode by the dot-product test
// <J v, w> == <v, J^T w>. The kernels cover each float function of docs/language.md, select, if/else,
// for loops with and without carried Vars (the carried case recomputed), loads at the work-item's own
// element and at others (atomic adds), stores and in-place updates, atomic_add, casts between float dtypes,
// integer index arrays, vectors, and 2-D stencils. tests/errors/autodiff.cpp holds the refusals.
#include "conformance/backend_param.hpp"
#include "conformance/gradient_check.hpp"

#include <tack/vector.hpp>

#include <cmath>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Autodiff);

// Runs both checks; `h` and `tolerance` as GradientCheck's.
void check_all(const tack::Device& d, const tack::Kernel& k, std::vector<GradArg> args, double tolerance = 1e-6) {
  GradientCheck check(d, k, std::move(args));
  EXPECT_GT(check.expect_matches_differences(1e-6, tolerance), 0);
  check.expect_dot_product_test();
}

TEST_P(Autodiff, ArithmeticAndEveryUnaryFunction) {
  // Each function at points where it is smooth; the sum keeps every term's derivative visible.
  auto k = tack::kernel("ad_unary", [](Array x, Array y) {
    parallel_for(x.size(), [&](Index i) {
      Value a = x[i];
      Value s = exp(a) + exp2(a) + log(a + 2.0) + log2(a + 2.0) + log10(a + 2.0) + sin(a) + cos(a) + tan(a) +
                asin(a * 0.5) + acos(a * 0.5) + atan(a) + sinh(a) + cosh(a) + tanh(a) + sqrt(a + 2.0) + rsqrt(a + 2.0) +
                abs(a - 0.05) + floor(a) + ceil(a) + round(a) + trunc(a);
      y[i] = s * a - a / (a + 3.0) + (-a);
    });
  });
  check_all(dev(), k, {GradArg::array(grad_values(8, -0.9, 0.9, 1)), GradArg::array(std::vector<double>(8, 0.0))});
}

TEST_P(Autodiff, EveryBinaryFunctionAndFma) {
  auto k = tack::kernel("ad_binary", [](Array a, Array b, Array y) {
    parallel_for(a.size(), [&](Index i) {
      Value x = a[i], z = b[i];
      y[i] = atan2(x, z) + pow(x + 2.0, z) + min(x, z) + max(x, z * 0.5) + copysign(x, z) + fma(x, z, x * x) +
             (x % (z + 3.0)) + floormod(x * 3.0, z + 3.0) + floordiv(x, z + 3.0) + x / (z + 3.0);
    });
  });
  check_all(dev(), k,
            {GradArg::array(grad_values(8, -0.9, 0.9, 2)), GradArg::array(grad_values(8, 0.1, 0.9, 3)),
             GradArg::array(std::vector<double>(8, 0.0))});
}

TEST_P(Autodiff, SelectIfElseAndScalars) {
  auto k = tack::kernel("ad_branches", [](Array x, Array y, Scalar s) {
    parallel_for(x.size(), [&](Index i) {
      Value a = x[i];
      Var v = a * s;
      if_(
          a > 0.0, [&] { v = v * a + sin(a); }, [&] { v = -v * exp(a); });
      y[i] = select(a > 0.3, v * v, v) + select(a < -0.2, a, 0.0);
    });
  });
  check_all(dev(), k,
            {GradArg::array(grad_values(12, -0.9, 0.9, 4)), GradArg::array(std::vector<double>(12, 0.0)),
             GradArg::number(1.5)});
}

TEST_P(Autodiff, LoopCarriedVarsAreRecomputed) {
  // v depends nonlinearly on its value from the previous iteration: the backward sweep needs every
  // iteration's v, which Warp's adjoint gets wrong without a rewrite of the loop.
  auto k = tack::kernel("ad_carried", [](Array x, Array y, ArrayOf<std::int32_t> n) {
    parallel_for(x.size(), [&](Index i) {
      Var v = x[i];
      Var w = 1.0;
      for_range(0, n[i], [&](Index j) {
        v = v * v * 0.5 + sin(v) + cast<double>(j) * 0.01;
        w = w * v;
      });
      y[i] = v + w;
    });
  });
  check_all(dev(), k,
            {GradArg::array(grad_values(6, -0.8, 0.8, 5)), GradArg::array(std::vector<double>(6, 0.0)),
             GradArg::array({0, 1, 2, 3, 5, 4}, tack::DType::I32)});
}

TEST_P(Autodiff, LinearAccumulationAndGathersAtOtherElements) {
  // acc is carried but only added to: no recompute; x is read at other work-items' elements (atomic adds).
  auto k = tack::kernel("ad_stencil", [](Array x, Array w, Array y) {
    parallel_for(y.size(), [&](Index i) {
      Var acc = 0.0;
      for_range(0, w.size(), [&](Index j) { acc += w[j] * x[i + j]; });
      y[i] = acc * acc;
    });
  });
  check_all(dev(), k,
            {GradArg::array(grad_values(10, -1, 1, 6)), GradArg::array(grad_values(3, -1, 1, 7)),
             GradArg::array(std::vector<double>(8, 0.0))});
}

TEST_P(Autodiff, InPlaceUpdatesAndAtomicAdd) {
  // y[i] += a * x[i] (the old y read at the element it overwrites, needed by nothing), and a scatter by
  // atomic_add into 3 bins by an integer index array, whose own gradient is left as it is.
  auto k = tack::kernel("ad_inplace", [](Array x, Array y, Array bins, ArrayOf<std::int32_t> bin) {
    parallel_for(x.size(), [&](Index i) {
      y[i] += 2.5 * x[i];
      y[i] = y[i] * 3.0;
      atomic_add(bins, bin[i], x[i] * x[i]);
      atomic_sub(bins, bin[i], y[i] * 0.5);
    });
  });
  check_all(dev(), k,
            {GradArg::array(grad_values(9, -1, 1, 8)), GradArg::array(grad_values(9, -1, 1, 9)),
             GradArg::array(grad_values(3, -1, 1, 10)), GradArg::array({0, 1, 2, 2, 1, 0, 0, 2, 1}, tack::DType::I32)});
}

TEST_P(Autodiff, TwoDimensionalJacobiStencil) {
  auto k = tack::kernel("ad_jacobi", [](Array u, Array out) {
    parallel_for({u.shape(0) - 2, u.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25 * (u(i, j + 1) + u(i + 2, j + 1) + u(i + 1, j) + u(i + 1, j + 2)) +
                          0.1 * u(i + 1, j + 1) * u(i + 1, j + 1);
    });
  });
  check_all(dev(), k,
            {GradArg::array2d(grad_values(30, -1, 1, 11), 5, 6), GradArg::array2d(std::vector<double>(30, 0.0), 5, 6)});
}

TEST_P(Autodiff, PeriodicPullStreamingNeedsNoAtomics) {
  // Each plane pulls from a neighbour with periodic wrap, as D2Q9's streaming does: no two work-items read one
  // element of fin, so the adjoint adds into its gradient plainly; the Jacobi stencil's reads overlap, and so
  // keep their atomic adds.
  auto k = tack::kernel("ad_pull", [](Array fout, Array fin) {
    Value h = fin.shape(1), w = fin.shape(2);
    parallel_for({h, w}, [&](Index i, Index j) {
      Value im = select(i == 0, h - 1, i - 1), jp = select(j == w - 1, Value(0), j + 1);
      Value a = fin(0, im, j), b = fin(1, i, jp), c = fin(2, i, j);
      fout(0, i, j) = a * b + c;
      fout(1, i, j) = sin(a) * c;
      fout(2, i, j) = b * b;
    });
  });
  auto planes = [](std::vector<double> v) {
    GradArg a = GradArg::array(std::move(v));
    a.shape = {3, 4, 5};
    return a;
  };
  check_all(dev(), k, {planes(std::vector<double>(60, 0.0)), planes(grad_values(60, -1, 1, 21))});
  const tack::ArraySpec f{tack::DType::F64, 3};
  EXPECT_EQ(tack::inspect(tack::adjoint(k), backend(), f, f, f, f).typed_ir.find("atomic"), std::string::npos);
  auto jacobi = tack::kernel("ad_jacobi_overlap", [](Array u, Array out) {
    parallel_for({u.shape(0) - 2, u.shape(1) - 2},
                 [&](Index i, Index j) { out(i + 1, j + 1) = u(i, j + 1) + u(i + 2, j + 1) + u(i + 1, j); });
  });
  const tack::ArraySpec g{tack::DType::F64, 2};
  EXPECT_NE(tack::inspect(tack::adjoint(jacobi), backend(), g, g, g, g).typed_ir.find("atomic_add"), std::string::npos);
}

TEST_P(Autodiff, LocalArraysAreStateLikeVars) {
  // A per-work-item buffer filled from the inputs, overwritten in place in nested loops (nonlinearly, so the
  // backward sweep needs the values each store replaced: the adjoint puts them back from copies), overwritten
  // by a plain store at the top level (its old element kept), and read back at every index.
  auto k = tack::kernel("ad_local", [](Array x, Array y) {
    parallel_for(y.size(), [&](Index i) {
      LocalArray buf = local_array<double>(4);
      for_range(0, 4, [&](Index j) { buf[j] = x[i * 4 + j] * (1.0 + 0.1 * cast<double>(j)); });
      for_range(0, 3, [&](Index) {
        for_range(1, 4, [&](Index j) { buf[j] = buf[j] * buf[j - 1] * 0.5 + sin(buf[j]); });
      });
      buf[0] = buf[0] * buf[3] + buf[1];
      Var acc = 0.0;
      for_range(0, 4, [&](Index j) { acc += buf[j] * buf[3 - j]; });
      y[i] = acc;
    });
  });
  check_all(dev(), k, {GradArg::array(grad_values(12, -0.8, 0.8, 30)), GradArg::array(std::vector<double>(3, 0.0))});
}

TEST_P(Autodiff, TextureSamplesDifferentiateWithRespectToTheCoordinates) {
  // 5 x 4 x 3 texels; the software sample is linear between texels, so away from texel boundaries the central
  // differences (of an f32 function, hence the loose tolerance) see the same slope as the adjoint. The last
  // point's u lies past 1, where the sample is clamped (the differences see that too).
  auto k = tack::kernel("ad_texture", [](Texture3D t, Array c, Array y) {
    parallel_for(y.size(), [&](Index i) {
      Value u = cast<float>(c(i, 0)), v = cast<float>(c(i, 1)), w = cast<float>(c(i, 2));
      Value s = t.sample(u, v * u, w);
      y[i] = cast<double>(s * s + s * u);
    });
  });
  std::vector<float> texels(5 * 4 * 3);
  for (std::size_t n = 0; n < texels.size(); ++n) texels[n] = static_cast<float>((n * 37) % 11) * 0.25f - 1.0f;
  const std::vector<double> coords = {0.1, 0.7, 0.3, 0.62, 0.55, 0.8, 0.37, 0.92, 0.2, 1.2, 0.45, 0.6};
  const std::vector<double> w = {0.7, -1.3, 0.4, 1.1};
  tack::Texture tex = tack::texture3d(dev().from_host(texels), {5, 4, 3});
  auto primal = [&](const std::vector<double>& at) {
    tack::Array c = dev().from_host(at, {4, 3}), y = dev().zeros(tack::DType::F64, {4});
    k(tex, c, y);
    auto out = y.to_host<double>();
    double l = 0;
    for (std::size_t i = 0; i < 4; ++i) l += w[i] * out[i];
    return l;
  };
  tack::Array c = dev().from_host(coords, {4, 3}), y = dev().zeros(tack::DType::F64, {4});
  k(tex, c, y);
  tack::Array gc = dev().zeros(tack::DType::F64, {4, 3}), gy = dev().from_host(w);
  tack::adjoint(k)(tex, c, y, gc, gy);
  const std::vector<double> g = gc.to_host<double>();
  for (std::size_t n = 0; n < coords.size(); ++n) {
    auto plus = coords, minus = coords;
    plus[n] += 1e-3;
    minus[n] -= 1e-3;
    const double fd = (primal(plus) - primal(minus)) / 2e-3;
    EXPECT_NEAR(g[n], fd, 2e-3 * std::max(1.0, std::abs(fd))) << "d loss / d coordinate " << n;
  }
  EXPECT_NE(g[0], 0.0);
  // The tangent kernel along a direction agrees with the adjoint (dot-product test).
  const std::vector<double> v = grad_values(12, -1, 1, 40);
  tack::Array c2 = dev().from_host(coords, {4, 3}), y2 = dev().zeros(tack::DType::F64, {4});
  tack::Array tc = dev().from_host(v, {4, 3}), ty = dev().zeros(tack::DType::F64, {4});
  tack::jvp(k)(tex, c2, y2, tc, ty);
  const std::vector<double> jv = ty.to_host<double>();
  double left = 0, right = 0;
  for (std::size_t i = 0; i < 4; ++i) left += jv[i] * w[i];
  for (std::size_t n = 0; n < 12; ++n) right += v[n] * g[n];
  EXPECT_NEAR(left, right, 1e-6 * std::max(1.0, std::abs(right)));  // both in f32 arithmetic
}

TEST_P(Autodiff, CastsBetweenFloatDtypesAndVectors) {
  // f32 arithmetic in the middle: the differences are of an f32 function, so the tolerance is f32's.
  auto k = tack::kernel("ad_casts", [](Array p, Array q, ArrayOf<float> f, Array y) {
    parallel_for(y.size(), [&](Index i) {
      Vec3 a{p(i, 0), p(i, 1), p(i, 2)};
      Vec3 b{q(i, 0), q(i, 1), q(i, 2)};
      Value narrow = cast<float>(length(cross(a, b)) + dot(a, normalize(b)));
      f[i] = narrow * narrow;
      y[i] = cast<double>(f[i]) + cast<double>(narrow) * 2.0;
    });
  });
  GradArg p = GradArg::array(grad_values(12, -1, 1, 12)), q = GradArg::array(grad_values(12, 0.2, 1, 13));
  p.shape = q.shape = {4, 3};
  GradientCheck check(dev(), k,
                      {p, q, GradArg::array(std::vector<double>(4, 0.0), tack::DType::F32),
                       GradArg::array(std::vector<double>(4, 0.0))});
  EXPECT_GT(check.expect_matches_differences(1e-3, 2e-3), 0);
  check.expect_dot_product_test(1e-6);
}

}  // namespace

namespace {

// ---- the Tape -----------------------------------------------------------------------------------------------

// One explicit step of u' = u_xx - u^3 on a periodic-free line (ends held), nonlinear so that its adjoint
// reads the values the step read.
tack::Kernel reaction_diffusion_step() {
  return tack::kernel("ad_rd_step", [](Array out, Array in) {
    parallel_for(in.size(), [&](Index i) {
      Value u = in[i];
      out[i] = u;
      if_((i > 0) && (i < in.size() - 1), [&] {
        out[i] = u + 0.2 * (in[i - 1] - 2.0 * u + in[i + 1]) - 0.1 * u * u * u;
      });
    });
  });
}

std::vector<double> rd_step_host(const std::vector<double>& in) {
  std::vector<double> out = in;
  for (std::size_t i = 1; i + 1 < in.size(); ++i)
    out[i] = in[i] + 0.2 * (in[i - 1] - 2.0 * in[i] + in[i + 1]) - 0.1 * in[i] * in[i] * in[i];
  return out;
}

double rd_loss_host(std::vector<double> u, int steps) {
  for (int s = 0; s < steps; ++s) u = rd_step_host(u);
  double l = 0;
  for (double x : u) l += x * x;
  return l;
}

TEST_P(Autodiff, TapeThroughPingPongBuffersMatchesCentralDifferences) {
  // Three steps between two arrays: the second overwrites the first array, which the first step read, so the
  // tape keeps a copy of it for the first step's adjoint; the second array needs no requires_grad of its own.
  auto step = reaction_diffusion_step();
  auto loss_kernel = tack::kernel("ad_sum_squares", [](Array l, Array u) {
    parallel_for(u.size(), [&](Index i) { atomic_add(l, 0, u[i] * u[i]); });
  });
  const std::vector<double> u0 = grad_values(12, -1, 1, 21);
  tack::Array a = dev().from_host(u0), b = dev().zeros(tack::DType::F64, {12}), l = dev().zeros(tack::DType::F64, {1});
  a.set_requires_grad();
  tack::Tape tape;
  {
    auto recording = tape.record();
    step(b, a);
    step(a, b);
    step(b, a);
    loss_kernel(l, b);
  }
  EXPECT_EQ(tape.size(), 4u);
  EXPECT_TRUE(b.requires_grad());
  EXPECT_NEAR(l.to_host<double>()[0], rd_loss_host(u0, 3), 1e-12);
  tape.backward(l);
  std::vector<double> g = a.grad().to_host<double>();
  for (std::size_t i = 0; i < u0.size(); ++i) {
    auto plus = u0, minus = u0;
    plus[i] += 1e-6;
    minus[i] -= 1e-6;
    const double fd = (rd_loss_host(plus, 3) - rd_loss_host(minus, 3)) / 2e-6;
    EXPECT_NEAR(g[i], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "d loss / d u0[" << i << "]";
  }
  // The arrays keep the values the launches left: the tape's copies are its own.
  EXPECT_NEAR(l.to_host<double>()[0], rd_loss_host(u0, 3), 1e-12);

  // zero() clears the gradients; a second backward pass after it gives the same gradient again, up to the
  // order of the stencil adjoint's atomic adds (any order, docs/semantics.md): f64 rounding, not bits.
  tape.zero();
  EXPECT_EQ(a.grad().to_host<double>(), std::vector<double>(12, 0.0));
  tape.backward(l);
  const std::vector<double> again = a.grad().to_host<double>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(again[i], g[i], 1e-12 * std::max(1.0, std::abs(g[i])));
  tape.reset();
  EXPECT_EQ(tape.size(), 0u);
}

TEST_P(Autodiff, TapeRecordsOnlyLaunchesOnArraysThatRequireGradients) {
  auto scale = tack::kernel("ad_scale", [](Array y, Array x) { parallel_for(x.size(), [&](Index i) { y[i] = 3.0 * x[i]; }); });
  tack::Array x = dev().from_host(std::vector<double>{1, 2}), y = dev().zeros(tack::DType::F64, {2});
  tack::Tape tape;
  {
    auto recording = tape.record();
    scale(y, x);  // nothing requires a gradient: not recorded
    x.set_requires_grad();
    scale(y, x);
  }
  scale(y, x);  // after the recording: not recorded
  EXPECT_EQ(tape.size(), 1u);
  std::vector<std::pair<tack::Array, tack::Array>> seeds{{y, dev().from_host(std::vector<double>{1, 10})}};
  tape.backward(seeds);
  EXPECT_EQ(x.grad().to_host<double>(), (std::vector<double>{3, 30}));
  EXPECT_THROW(dev().zeros(tack::DType::I32, {2}).set_requires_grad(), tack::InvalidArgument);
  EXPECT_THROW((void)dev().zeros(tack::DType::I32, {2}).grad(), tack::InvalidArgument);
}

}  // namespace
