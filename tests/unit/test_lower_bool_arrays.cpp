// passes::lower_bool_arrays: a bool array (parameter or shared) becomes a u8
// array, each load `u8 load != 0` and each store a u8 cast of the bool; a
// kernel without bool arrays comes back as it was.
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "passes/infer_types.hpp"
#include "passes/lower_bool_arrays.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"

#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <string>
#include <vector>

using namespace tack::lang;
using tack::DType;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

tack::ir::Kernel typed(const tack::Kernel& k, const std::vector<tack::passes::ParamType>& types) {
  return tack::passes::infer_types(tack::detail::Access::impl(k)->traced(), types);
}

TEST(LowerBoolArrays, LoadsCompareTheByteWithZeroAndStoresCastTheBool) {
  auto k = tack::kernel("mask", [](Array out, Array mask, Array x) {
    parallel_for(out.size(), [&](Index i) { out[i] = mask[i] && x[i] > 0.0f; });
  });
  const tack::ir::Kernel in = typed(k, {{DType::Bool, 1}, {DType::Bool, 1}, {DType::F32, 1}});
  const tack::ir::Kernel out = tack::passes::lower_bool_arrays(in);
  const std::string text = tack::ir::to_string(out);
  EXPECT_EQ(out.params[0].dtype, DType::U8);
  EXPECT_EQ(out.params[1].dtype, DType::U8);
  EXPECT_EQ(out.params[2].dtype, DType::F32);
  EXPECT_TRUE(contains(text, "= load.u8 %1[index0]")) << text;
  EXPECT_TRUE(contains(text, "ne.bool(t")) << text;
  EXPECT_TRUE(contains(text, ", u8(0))")) << text;
  EXPECT_TRUE(contains(text, "store %0[index0] = cast.u8(and.bool(")) << text;
  EXPECT_FALSE(contains(text, "load.bool")) << text;
  std::string why;
  EXPECT_TRUE(tack::ir::verify_ok(out, &why)) << why << "\n" << text;
}

TEST(LowerBoolArrays, SharedBoolArraysBecomeBytesToo) {
  auto k = tack::kernel("shared_flags", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      SharedArray seen = g.shared<bool>(256);
      seen[g.local_id()] = g.local_id() > 3;
      g.barrier();
      out[g.global_id()] = select(seen[255 - g.local_id()], 1, 0);
    });
  });
  const tack::ir::Kernel out = tack::passes::lower_bool_arrays(typed(k, {{DType::I32, 1}}));
  ASSERT_EQ(out.shared.size(), 1u);
  EXPECT_EQ(out.shared[0].dtype, DType::U8);
  const std::string text = tack::ir::to_string(out);
  EXPECT_TRUE(contains(text, "load.u8")) << text;
  EXPECT_TRUE(contains(text, "cast.u8(")) << text;
  std::string why;
  EXPECT_TRUE(tack::ir::verify_ok(out, &why)) << why << "\n" << text;
}

TEST(LowerBoolArrays, AKernelWithoutBoolArraysIsUnchanged) {
  auto k = tack::kernel("no_bools",
                        [](Array out, Array x) { parallel_for(out.size(), [&](Index i) { out[i] = x[i] > 0; }); });
  const tack::ir::Kernel in = typed(k, {{DType::U8, 1}, {DType::I32, 1}});
  const tack::ir::Kernel out = tack::passes::lower_bool_arrays(in);
  EXPECT_TRUE(out.body.same_as(in.body));
  EXPECT_EQ(tack::ir::to_string(out), tack::ir::to_string(in));
}

}  // namespace
