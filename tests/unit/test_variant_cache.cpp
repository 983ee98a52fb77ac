// The in-memory variant cache: one compiled variant per kernel and argument
// signature; scalar values never recompile; the kernel is traced once.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include "runtime/memory/access.hpp"
#include "runtime/devices/backend.hpp"

using namespace tack::lang;

namespace {

TEST(VariantCache, ScalarValuesReuseTheVariant) {
  auto dev = tack::device("interp", {{"lanes", std::int64_t{64}}});  // a device of this test's own
  int traced = 0;
  auto k = tack::kernel("cache_scale", [&](Array y, Scalar a) {
    ++traced;
    parallel_for(y.size(), [&](Index i) { y[i] = y[i] * a; });
  });
  auto y = dev.from_host(std::vector<float>{1, 2, 3});
  EXPECT_EQ(tack::detail::Access::backend(dev)->variant_count(), 0u);
  k(y, 2.0f);
  k(y, 3.0f);
  k(y, -1.0f);
  EXPECT_EQ(tack::detail::Access::backend(dev)->variant_count(), 1u);
  EXPECT_EQ(traced, 1);
  EXPECT_EQ(y.to_host<float>(), (std::vector<float>{-6, -12, -18}));
}

TEST(VariantCache, DtypesAndRanksMakeNewVariants) {
  auto dev = tack::device("interp", {{"lanes", std::int64_t{32}}});
  auto k = tack::kernel("cache_inc", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] + 1; }); });
  auto f = dev.zeros(tack::DType::F32, {4});
  auto d = dev.zeros(tack::DType::F64, {4});
  auto f2 = dev.zeros(tack::DType::F32, {2, 2});
  k(f);
  k(d);
  k(f2);
  k(f);
  EXPECT_EQ(tack::detail::Access::backend(dev)->variant_count(), 3u);
  EXPECT_EQ(f.to_host<float>(), (std::vector<float>{2, 2, 2, 2}));
  EXPECT_EQ(d.to_host<double>(), (std::vector<double>{1, 1, 1, 1}));
}

TEST(VariantCache, IdenticalKernelsShareVariantsAndDifferentCapturesDoNot) {
  auto dev = tack::device("interp", {{"lanes", std::int64_t{16}}});
  auto make = [](float c) {
    return tack::kernel("cache_add", [c](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] + c; }); });
  };
  auto a = make(1.0f), b = make(1.0f), c = make(2.0f);
  auto y = dev.zeros(tack::DType::F32, {2});
  a(y);
  b(y);
  EXPECT_EQ(tack::detail::Access::backend(dev)->variant_count(), 1u) << "the same IR gives the same key";
  c(y);
  EXPECT_EQ(tack::detail::Access::backend(dev)->variant_count(), 2u) << "a captured constant is part of the IR";
  EXPECT_EQ(y.to_host<float>(), (std::vector<float>{4, 4}));
}

TEST(VariantCache, DebugModeIsPartOfTheKey) {
  auto dev = tack::device("interp", {{"lanes", std::int64_t{8}}});
  auto k = tack::kernel("cache_dbg", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = 1; }); });
  auto y = dev.zeros(tack::DType::F32, {2});
  k(y);
  tack::set_debug(true);
  k(y);
  tack::set_debug(false);
  EXPECT_EQ(tack::detail::Access::backend(dev)->variant_count(), 2u);
}

}  // namespace
