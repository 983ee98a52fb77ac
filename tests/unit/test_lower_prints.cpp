// print in the IR: the traced statement and its text (which the variant key
// hashes), what passes::lower_prints makes of it, and how values are formatted.
#include "ir/printer.hpp"
#include "passes/lower_prints.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "runtime/kernels/print_capture.hpp"
#include "runtime/kernels/resolve_variant.hpp"

#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

using namespace tack::lang;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

tack::Kernel printer(const std::string& name, const char* format) {
  return tack::kernel(name, [format](Array out) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = i;
      print(format, i, out.size());
    });
  });
}

TEST(LowerPrints, TheIrShowsTheFormatEscapedAndTheArguments) {
  auto k = printer("p", "a \"{}\"\n{}");
  EXPECT_TRUE(contains(k.ir(), "print \"a \\\"{}\\\"\\n{}\", index0, size(%0)")) << k.ir();
}

TEST(LowerPrints, KernelsDifferingOnlyInTheFormatHashApart) {
  auto a = printer("same", "x {} {}");
  auto b = printer("same", "y {} {}");
  (void)a.ir();
  (void)b.ir();
  EXPECT_FALSE(tack::detail::Access::impl(a)->hash_lo() == tack::detail::Access::impl(b)->hash_lo() &&
               tack::detail::Access::impl(a)->hash_hi() == tack::detail::Access::impl(b)->hash_hi());
}

TEST(LowerPrints, LowersToAnAtomicAndStoresIntoHiddenArrays) {
  auto k = tack::kernel("mixed", [](Array f, Array d) {
    parallel_for(f.size(), [&](Index i) { print("{} {} {} {}", f[i], d[i], i, f[i] > 0.0f); });
  });
  auto dev = tack::device("interp");
  tack::Array f = dev.zeros(tack::DType::F32, {4});
  tack::Array d = dev.zeros(tack::DType::F64, {4});
  (void)k.ir();
  auto call =
      tack::runtime::check_call(*tack::detail::Access::impl(k), std::vector<tack::KernelArg>{f, d}, nullptr, false);
  tack::passes::Specialized specialized =
      tack::runtime::specialize(*tack::detail::Access::impl(k), *call.backend, call.signature, {});
  const tack::passes::PrintLayout& layout = specialized.prints;
  const tack::ir::Kernel& typed = specialized.kernel;
  const std::string text = tack::ir::to_string(typed);
  EXPECT_FALSE(contains(text, "print ")) << text;
  EXPECT_TRUE(contains(text, "atomic_add %2[")) << text;
  ASSERT_TRUE(layout.active());
  EXPECT_EQ(layout.words_param, 2);
  EXPECT_EQ(layout.words_width, 3 + 1);  // the flat index (2 words), the site, the bool
  // i is i64: a u64 column; f32 and f64 have their own.
  ASSERT_EQ(layout.columns.size(), 3u);
  EXPECT_EQ(layout.columns[0].dtype, tack::DType::U64);
  EXPECT_EQ(layout.columns[1].dtype, tack::DType::F32);
  EXPECT_EQ(layout.columns[2].dtype, tack::DType::F64);
  EXPECT_EQ(typed.params.size(), 6u);
  ASSERT_EQ(layout.sites.size(), 1u);
  EXPECT_EQ(layout.sites[0].format, "{} {} {} {}");
  ASSERT_EQ(layout.sites[0].args.size(), 4u);
  EXPECT_EQ(layout.sites[0].args[3].dtype, tack::DType::Bool);
  EXPECT_EQ(layout.sites[0].args[3].column, 0);
  EXPECT_EQ(layout.sites[0].args[3].offset, 3);
}

TEST(LowerPrints, KernelsWithoutPrintsAreUnchanged) {
  auto k = tack::kernel("plain", [](Array out) { parallel_for(out.size(), [&](Index i) { out[i] = i; }); });
  tack::Array out = tack::device("interp").zeros(tack::DType::F32, {4});
  (void)k.ir();
  auto call =
      tack::runtime::check_call(*tack::detail::Access::impl(k), std::vector<tack::KernelArg>{out}, nullptr, false);
  tack::passes::Specialized specialized =
      tack::runtime::specialize(*tack::detail::Access::impl(k), *call.backend, call.signature, {});
  const tack::passes::PrintLayout& layout = specialized.prints;
  const tack::ir::Kernel& typed = specialized.kernel;
  EXPECT_FALSE(layout.active());
  EXPECT_EQ(typed.params.size(), 1u);
}

TEST(LowerPrints, ValuesFormatExactly) {
  using tack::DType;
  using tack::runtime::format_print_value;
  EXPECT_EQ(format_print_value(DType::I8, 0xFFFFFF80u), "-128");
  EXPECT_EQ(format_print_value(DType::U8, 0xFFu), "255");
  EXPECT_EQ(format_print_value(DType::I16, 0xFFFF8000u), "-32768");
  EXPECT_EQ(format_print_value(DType::U32, 0xFFFFFFFFu), "4294967295");
  EXPECT_EQ(format_print_value(DType::I64, 0x8000000000000000ull), "-9223372036854775808");
  EXPECT_EQ(format_print_value(DType::U64, ~0ull), "18446744073709551615");
  EXPECT_EQ(format_print_value(DType::Bool, 1), "true");
  EXPECT_EQ(format_print_value(DType::Bool, 0), "false");
  EXPECT_EQ(format_print_value(DType::F32, std::bit_cast<std::uint32_t>(0.1f)), "0.1");
  EXPECT_EQ(format_print_value(DType::F32, std::bit_cast<std::uint32_t>(-0.0f)), "-0");
  EXPECT_EQ(format_print_value(DType::F32, 0xFFC00000u), "nan");  // a negative NaN too
  EXPECT_EQ(format_print_value(DType::F64, std::bit_cast<std::uint64_t>(1e300)), "1e+300");
  EXPECT_EQ(format_print_value(DType::F64, std::bit_cast<std::uint64_t>(-std::numeric_limits<double>::infinity())),
            "-inf");
}

}  // namespace
