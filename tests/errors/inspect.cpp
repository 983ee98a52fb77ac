// tack::inspect for backends without their device: bad names are refused with a
// suggestion, and a kernel the backend would refuse at the call is refused the
// same way when only its source is asked for.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

namespace {

using namespace tack::lang;

TEST(Inspect, UnknownBackendSuggestsTheClosest) {
  auto k = tack::kernel("k", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = 1; }); });
  EXPECT_TACK_ERROR(tack::inspect(k, "cudda", tack::ArraySpec{}), tack::InvalidArgument,
                    "tack::inspect: unknown backend 'cudda'", "did you mean 'cuda'", "the backends are: ", "level_zero",
                    "metal");
}

TEST(Inspect, MetalRefusesF64ArgumentsAsTheCallWould) {
  auto k = tack::kernel("scale", [](Array y, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] * a; }); });
  EXPECT_TACK_ERROR(tack::inspect(k, "metal", tack::ArraySpec{tack::DType::F64, 1}, 2.0), tack::TypeError,
                    "kernel 'scale', argument 0", "f64 is not supported on the metal backend");
}

TEST(Inspect, MetalRefusesF64ComputedInsideTheKernel) {
  auto k = tack::kernel("widen", [](Array y) {
    parallel_for(y.size(), [&](Index i) { y[i] = cast<float>(cast<double>(y[i]) * 3.0); });
  });
  EXPECT_TACK_ERROR(tack::inspect(k, "metal", tack::ArraySpec{tack::DType::F32, 1}), tack::TypeError,
                    "kernel 'widen'", "Metal has no double precision", "use f32 on Metal");
}

// NumPy's i / j is f64: refused where the device has none, at the line that divides, with the two ways out.
TEST(Inspect, MetalRefusesIntegerTrueDivision) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel(
      "ratio", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = true_div(a[i], i); }); });
  const tack::ArraySpec f32{tack::DType::F32, 1}, i32{tack::DType::I32, 1};
  EXPECT_TACK_ERROR(tack::inspect(k, "metal", f32, i32), tack::TypeError, "kernel 'ratio' at ",
                    "inspect.cpp:" + std::to_string(line),
                    "true division of integers (i64) gives f64, as in NumPy, but the metal backend has no f64",
                    "cast an operand with cast<float>() first", "floor division (floordiv())");
  // A float operand divides in its own type: f32 on Metal is fine.
  EXPECT_NO_THROW(tack::inspect(k, "metal", f32, f32));
  EXPECT_NO_THROW(tack::inspect(k, "cuda", f32, i32));
}

TEST(Inspect, AtomicsTheBackendLacksAreRefused) {
  auto k = tack::kernel("count", [](Array c) { parallel_for(c.size(), [&](Index i) { atomic_add(c, 0, 1); }); });
  // Metal has no 64-bit compare-and-swap to emulate them with.
  EXPECT_TACK_ERROR(tack::inspect(k, "metal", tack::ArraySpec{tack::DType::U64, 1}), tack::TypeError, "kernel 'count'",
                    "atomic_add on u64 is not supported on metal");
  EXPECT_NO_THROW(tack::inspect(k, "cuda", tack::ArraySpec{tack::DType::I8, 1}));
}

}  // namespace
