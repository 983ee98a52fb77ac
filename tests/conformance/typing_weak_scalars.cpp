// Typing rules, weak scalar arguments: a KernelArg marked weak (what the Python
// package passes for a Python int or float, as NumPy 2's NEP 50 treats them)
// adapts to the other operand wherever it is used, exactly as a literal does;
// the same value passed strong keeps its own dtype. Weak and strong calls of
// one kernel are distinct variants.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(TypingWeakScalars);

tack::KernelArg weak(double v) {
  tack::KernelArg a(v);
  a.weak = true;
  return a;
}
tack::KernelArg weak(std::int64_t v) {
  tack::KernelArg a(v);
  a.weak = true;
  return a;
}

void launch(const tack::Kernel& k, std::initializer_list<tack::KernelArg> args) {
  k.launch(std::span<const tack::KernelArg>(args.begin(), args.size()));
}

// 0.1 weak with an f32 array multiplies in f32; 0.1 strong (a double) in f64.
TEST_P(TypingWeakScalars, WeakFloatTakesTheArraysFloatType) {
  if (!has_dtype<double>()) GTEST_SKIP() << "the backend has no f64";
  auto k = tack::kernel(
      "weak_float", [](Array out, Array a, Scalar s) { parallel_for(a.size(), [&](Index i) { out[i] = a[i] * s; }); });
  const std::vector<float> a = {3.0f, 0.7f};
  const std::vector<double> want_weak = {static_cast<double>(3.0f * 0.1f), static_cast<double>(0.7f * 0.1f)};
  const std::vector<double> want_strong = {3.0 * 0.1, static_cast<double>(0.7f) * 0.1};
  expect_exact(
      "weak 0.1 * f32",
      [&](const tack::Device& d) {
        tack::Array out = zeros<double>(d, 2);
        tack::Array in = d.from_host(a);
        launch(k, {out, in, weak(0.1)});
        return out.to_host<double>();
      },
      want_weak, [](std::size_t i) { return "row " + std::to_string(i); });
  expect_exact(
      "strong 0.1 * f32",
      [&](const tack::Device& d) {
        tack::Array out = zeros<double>(d, 2);
        tack::Array in = d.from_host(a);
        k(out, in, 0.1);
        return out.to_host<double>();
      },
      want_strong, [](std::size_t i) { return "row " + std::to_string(i); });
}

// A weak int with a u8 array stays u8 and wraps (255 + 1 == 0); strong i64 widens to 256.
TEST_P(TypingWeakScalars, WeakIntTakesTheArraysIntegerType) {
  if (!has_dtype<std::uint8_t>() || !has_dtype<std::int64_t>()) GTEST_SKIP() << "the backend lacks u8 or i64";
  auto k = tack::kernel(
      "weak_int", [](Array out, Array a, Scalar s) { parallel_for(a.size(), [&](Index i) { out[i] = a[i] + s; }); });
  const std::vector<std::uint8_t> a = {255, 7};
  expect_exact(
      "weak 1 + u8",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 2);
        tack::Array in = d.from_host(a);
        launch(k, {out, in, weak(std::int64_t{1})});
        return out.to_host<std::int64_t>();
      },
      std::vector<std::int64_t>{0, 8}, [](std::size_t i) { return "row " + std::to_string(i); });
  expect_exact(
      "strong i64 1 + u8",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 2);
        tack::Array in = d.from_host(a);
        k(out, in, std::int64_t{1});
        return out.to_host<std::int64_t>();
      },
      std::vector<std::int64_t>{256, 8}, [](std::size_t i) { return "row " + std::to_string(i); });
}

// The typed IR: a weak scalar keeps its storage dtype and is cast where it meets the array.
TEST(TypingWeakScalarsIr, WeakScalarIsCastWhereItIsUsed) {
  auto k =
      tack::kernel("weak_ir", [](Array y, Scalar s) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] * s; }); });
  const tack::KernelArg args[] = {tack::ArraySpec{tack::DType::F32, 1}, weak(2.0)};
  const std::string typed = tack::inspect_args(k, "interp", args).typed_ir;
  EXPECT_NE(typed.find("Scalar<f64>"), std::string::npos) << typed;
  EXPECT_NE(typed.find("mul.f32"), std::string::npos) << typed;
  EXPECT_NE(typed.find("cast.f32(%1)"), std::string::npos) << typed;
  const tack::KernelArg strong[] = {tack::ArraySpec{tack::DType::F32, 1}, tack::KernelArg(2.0)};
  EXPECT_NE(tack::inspect_args(k, "interp", strong).typed_ir.find("mul.f64"), std::string::npos);
}

}  // namespace
