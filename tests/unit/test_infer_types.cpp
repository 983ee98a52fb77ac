// Inference's rewrites that change an operation, not only its types: Python's
// true division becomes div (on f64 casts for integers), and a shape dimension
// counted from the end becomes the one it names for the call's rank.
#include "ir/printer.hpp"
#include "passes/infer_types.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace tack::lang;
using tack::DType;
using tack::passes::ParamType;

std::string typed_text(const tack::Kernel& k, const std::vector<ParamType>& params) {
  return tack::ir::to_string(tack::passes::infer_types(tack::detail::Access::impl(k)->traced(), params));
}

tack::Kernel ratio() {
  return tack::kernel("ratio", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = true_div(a[i], b[i]); });
  });
}

TEST(InferTypes, IntegerTrueDivisionIsDivOfF64Casts) {
  std::string ir = typed_text(ratio(), {{DType::F64, 1}, {DType::I32, 1}, {DType::U8, 1}});
  EXPECT_EQ(ir.find("truediv"), std::string::npos) << ir;
  EXPECT_NE(ir.find("div.f64(cast.f64(t1), cast.f64(t0))"), std::string::npos) << ir;
}

TEST(InferTypes, FloatTrueDivisionIsDivOfItsType) {
  std::string ir = typed_text(ratio(), {{DType::F32, 1}, {DType::F32, 1}, {DType::I32, 1}});
  EXPECT_EQ(ir.find("truediv"), std::string::npos) << ir;
  EXPECT_NE(ir.find("div.f32(t1, cast.f32(t0))"), std::string::npos) << ir;
}

TEST(InferTypes, WeakIntegersTrueDivideToAWeakF64) {
  // Python's 7 / 2 is a Python float: weak, so it adapts to the f32 it meets (NEP 50).
  auto k = tack::kernel("scaled", [](Array out, Scalar n) {
    parallel_for(out.size(), [&](Index i) { out[i] = out[i] * true_div(n, 2); });
  });
  std::string ir = typed_text(k, {{DType::F32, 1}, {DType::I64, 0, true}});
  EXPECT_NE(ir.find("mul.f32(t0, cast.f32(div.f64(cast.f64(%1), f64(2))))"), std::string::npos) << ir;
}

// The lowered form is ordinary IR, so simplify's identities apply: x / 1 and x * 1 are x (a cast for integers).
TEST(InferTypes, LoweredTrueDivisionsSimplify) {
  auto k = tack::kernel("by_one", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) { out[i] = true_div(a[i], 1) * 1 + true_div(a[i] * 1.0f, 1); });
  });
  std::string ints = tack::ir::to_string(tack_test::typed_kernel(k, {{DType::F64, 1}, {DType::I32, 1}}));
  EXPECT_EQ(ints.find("div"), std::string::npos) << ints;
  EXPECT_EQ(ints.find("mul"), std::string::npos) << ints;
  std::string floats = tack::ir::to_string(tack_test::typed_kernel(k, {{DType::F32, 1}, {DType::F32, 1}}));
  EXPECT_EQ(floats.find("div"), std::string::npos) << floats;
  EXPECT_NE(floats.find("add.f32(t1, t0)"), std::string::npos) << floats;
}

TEST(InferTypes, ShapeFromTheEndNamesTheDimensionOfTheCallsRank) {
  auto k = tack::kernel("last",
                        [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a.shape(-1); }); });
  EXPECT_NE(tack::ir::to_string(tack::detail::Access::impl(k)->traced()).find("shape(%1, -1)"), std::string::npos);
  EXPECT_NE(typed_text(k, {{DType::I64, 1}, {DType::F32, 3}}).find("shape(%1, 2)"), std::string::npos);
  EXPECT_NE(typed_text(k, {{DType::I64, 1}, {DType::F32, 1}}).find("shape(%1, 0)"), std::string::npos);
}

}  // namespace
