// Errors of struct parameters: a tack::bundle with the wrong number of fields or a
// field of the wrong kind, a plain argument for a struct and a bundle for a plain
// parameter; each names the kernel, the parameter and the field.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

namespace {

using namespace tack::lang;

struct State {
  Array pos;
  Array vel;
  Scalar dt;
};

tack::Kernel step_kernel() {
  return tack::kernel("step", [](State s, Scalar damping) {
    parallel_for(s.pos.size(), [&](Index i) { s.pos[i] = s.pos[i] + s.vel[i] * s.dt * damping; });
  });
}

class StructErrors : public ::testing::Test {
 protected:
  tack::Device d = tack::device("interp");
  tack::Array pos = d.zeros(tack::DType::F32, {4}), vel = d.zeros(tack::DType::F32, {4});
  tack::Kernel step = step_kernel();
};

TEST_F(StructErrors, ABundleWithTooFewFields) {
  EXPECT_TACK_ERROR(step(tack::bundle(pos, vel), 1.0f), tack::InvalidArgument,
                    "kernel 'step', parameter 1 is a struct of 3 fields; the tack::bundle has 2");
}

TEST_F(StructErrors, AFieldOfTheWrongKind) {
  EXPECT_TACK_ERROR(step(tack::bundle(pos, 0.5f, 0.1f), 1.0f), tack::TypeError,
                    "kernel 'step', parameter 1, field 2: the struct declares an array, the tack::bundle gives a scalar");
}

TEST_F(StructErrors, APlainArgumentForAStruct) {
  EXPECT_TACK_ERROR(step(pos, 1.0f), tack::InvalidArgument,
                    "kernel 'step', parameter 1 is a struct of 3 fields: pass tack::bundle(...) with its fields in order");
}

TEST_F(StructErrors, ABundleForAPlainParameter) {
  EXPECT_TACK_ERROR(step(tack::bundle(pos, vel, 0.1f), tack::bundle(1.0f)), tack::InvalidArgument,
                    "kernel 'step', parameter 2 is one array or scalar, not a struct");
}

TEST_F(StructErrors, TheWrongNumberOfArguments) {
  EXPECT_TACK_ERROR(step(tack::bundle(pos, vel, 0.1f)), tack::InvalidArgument,
                    "kernel 'step' takes 2 arguments (a struct parameter is one tack::bundle), got 1");
}

TEST_F(StructErrors, ABundleForAKernelWithoutStructs) {
  auto k = tack::kernel("plain", [](Array a) { parallel_for(a.size(), [&](Index i) { a[i] = 1.0f; }); });
  EXPECT_TACK_ERROR(k(tack::bundle(pos)), tack::InvalidArgument,
                    "kernel 'plain', parameter 1 is one array or scalar, not a struct");
}

TEST_F(StructErrors, AGoodBundleRuns) {
  step(tack::bundle(pos, vel, 0.1f), 1.0f);
  EXPECT_EQ(pos.to_host<float>(), std::vector<float>(4, 0.0f));
}

}  // namespace
