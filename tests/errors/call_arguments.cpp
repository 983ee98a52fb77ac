// Bad kernel calls: wrong argument count, kind or dtype, fixed dtypes, empty
// arrays. Each is refused at the call, before compiling, naming the kernel and
// the argument.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

using namespace tack::lang;

namespace {

auto add_scalar =
    tack::kernel("add_scalar", [](Array y, Scalar s) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] + s; }); });
auto fixed = tack::kernel("fixed", [](ArrayOf<float> y, ScalarOf<int> s) {
  parallel_for(y.size(), [&](Index i) { y[i] = y[i] + cast<float>(s); });
});

TEST(CallArguments, TooFewArguments) {
  auto y = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(add_scalar(y), tack::InvalidArgument, "kernel 'add_scalar' takes 2 arguments", "(Array, Scalar)",
                    "got 1");
}

TEST(CallArguments, TooManyArguments) {
  auto y = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(add_scalar(y, 1.0f, 2.0f), tack::InvalidArgument, "takes 2 arguments", "got 3");
}

TEST(CallArguments, ScalarWhereAnArrayIsExpected) {
  auto y = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(add_scalar(1.0f, y), tack::TypeError, "kernel 'add_scalar', argument 0",
                    "the parameter is an Array, got a scalar");
}

TEST(CallArguments, ArrayWhereAScalarIsExpected) {
  auto y = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(add_scalar(y, y), tack::TypeError, "argument 1", "the parameter is a Scalar, got an Array");
}

TEST(CallArguments, FixedArrayDtypeMismatch) {
  auto y = tack::device("interp").zeros(tack::DType::F64, {4});
  EXPECT_TACK_ERROR(fixed(y, 1), tack::TypeError, "kernel 'fixed', argument 0", "declared ArrayOf<f32>", "got f64");
}

TEST(CallArguments, FixedScalarDtypeMismatch) {
  auto y = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(fixed(y, 1.5), tack::TypeError, "argument 1", "declared ScalarOf<i32>", "got f64");
}

TEST(CallArguments, DtypeMixNeedingACast) {
  auto k = tack::kernel(
      "mix", [](Array out, Array a, Array b) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] + b[i]; }); });
  auto dev = tack::device("interp");
  auto out = dev.zeros(tack::DType::U64, {4});
  auto a = dev.zeros(tack::DType::U64, {4});
  auto b = dev.zeros(tack::DType::I32, {4});
  EXPECT_TACK_ERROR(k(out, a, b), tack::TypeError, "kernel 'mix'", "cannot mix u64 and i32", "cast");
}

TEST(CallArguments, EmptyArray) {
  tack::Array empty;
  EXPECT_TACK_ERROR(add_scalar(empty, 1.0f), tack::InvalidArgument, "argument 0", "empty tack::Array");
}

TEST(CallArguments, WrongRankForSubscripts) {
  auto k = tack::kernel("two_d", [](Array a) {
    parallel_for({a.shape(0), a.shape(1)}, [&](Index i, Index j) { a(i, j) = 1; });
  });
  auto a = tack::device("interp").zeros(tack::DType::F32, {4});
  EXPECT_TACK_ERROR(k(a), tack::IndexError, "kernel 'two_d'", "shape(1) of argument 0, which has rank 1");
}

TEST(CallArguments, ArraySpecOnlyForInspect) {
  EXPECT_TACK_ERROR(add_scalar(tack::ArraySpec{tack::DType::F32, 1}, 1.0f), tack::TypeError, "got an ArraySpec");
}

TEST(CallArguments, EmptyKernel) {
  tack::Kernel k;
  EXPECT_TACK_ERROR(k(), tack::InvalidArgument, "empty tack::Kernel");
}

}  // namespace

namespace {
TEST(CallArguments, ArrayFromAnotherDevice) {
  auto shared = tack::device("interp");
  auto other = tack::device("interp", {{"lanes", std::int64_t{1}}});
  ASSERT_FALSE(shared == other) << "a device made with options is its own device";
  auto y = shared.zeros(tack::DType::F32, {4});
  auto x = other.zeros(tack::DType::F32, {4});
  auto k = tack::kernel("two_devices", [](Array y, Array x) { parallel_for(y.size(), [&](Index i) { y[i] = x[i]; }); });
  EXPECT_TACK_ERROR(k(y, x), tack::InvalidArgument, "kernel 'two_devices', argument 1", "(the device of argument 0)",
                    "copy it with to_host/from_host");
}

TEST(CallArguments, BadDeviceOptionValue) {
  EXPECT_TACK_ERROR(tack::device("interp", {{"lanes", std::int64_t{0}}}), tack::InvalidArgument,
                    "option 'lanes' must be an integer from 1 to 256");
  EXPECT_TACK_ERROR(tack::device("interp", {{"lanes", std::string("many")}}), tack::InvalidArgument, "'lanes'");
}
}  // namespace
