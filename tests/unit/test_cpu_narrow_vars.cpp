// i64 Vars held in 32 bits in the CPU's gangs (src/analysis/narrow_vars, the emitter's var slots): which Vars only
// ever hold 32-bit values, and that what a kernel computes with them, at the edges of that range too, is what it
// computes with 64 bits. unit.cpu_scalar_path runs the results on the scalar path too.
#include "analysis/narrow_vars.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;
using tack_test::typed_kernel;

constexpr std::int64_t kI32Max = 2147483647, kI32Min = -2147483647 - 1;

// out[i]: the index c of the least (x[i] - c)^2 over 16 c (a loop index), a constant at either end of 32 bits, a
// copy of the first (given an i64 sum later: not narrow), one past the top, a product, an unsigned 32-bit value.
tack::Kernel narrow_and_wide() {
  return tack::kernel("narrow_and_wide", [](Array out, Array x, Array u) {
    parallel_for(x.size(), [&](Index i) {
      Var best = 0, best_d = 1e30f;
      for_range(0, 16, [&](Index c) {
        Value d = (x[i] - cast<float>(c)) * (x[i] - cast<float>(c));
        if_(d < best_d, [&] {
          best_d = d;
          best = c;
        });
      });
      Var top = Value(kI32Max), bottom = Value(kI32Min), copy = best;
      if_(x[i] > 100.0f, [&] {
        top = Value(kI32Min);
        bottom = Value(kI32Max);
      });
      Var past = Value(kI32Max + 1), product = i * 1000000000, wide = cast<int64_t>(u[i]);
      // An i64 sum (of zero, but the analysis cannot know): not narrow.
      for_range(kI32Max - 3, kI32Max,
                [&](Index k) { if_(k == kI32Max - 2 + (i % 2), [&] { copy = copy + cast<int64_t>(x[i] > 1e9f); }); });
      out(i, 0) = best;
      out(i, 1) = top;
      out(i, 2) = bottom;
      out(i, 3) = copy;
      out(i, 4) = past;
      out(i, 5) = product;
      out(i, 6) = wide;
    });
  });
}

TEST(CpuNarrowVars, OnlyVarsOf32BitValuesAreNarrow) {
  const tack::ir::Kernel typed = typed_kernel(narrow_and_wide(), {{DType::I64, 2}, {DType::F32, 1}, {DType::U32, 1}});
  const std::vector<bool> narrow = tack::analysis::i32_ranged_vars(typed);
  ASSERT_EQ(narrow.size(), typed.vars.size());
  // Vars in the order declared: best, best_d, top, bottom, copy, past, product, wide.
  ASSERT_GE(typed.vars.size(), 8u);
  EXPECT_EQ(std::vector<bool>(narrow.begin(), narrow.begin() + 8),
            (std::vector<bool>{true, false, true, true, false, false, false, false}));
}

TEST(CpuNarrowVars, NarrowVarsGiveWhatWideOnesGive) {
  tack::Device cpu = tack::device("cpu");
  for (std::int64_t n : {1, 7, 16, 17, 100}) {
    std::vector<float> x(static_cast<std::size_t>(n));
    std::vector<std::uint32_t> u(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = i % 9 == 4 ? 200.0f : float(i % 23) * 0.7f;
      u[i] = 4294967295u - std::uint32_t(i);
    }
    tack::Array out = cpu.zeros(DType::I64, {n, 7});
    narrow_and_wide()(out, cpu.from_host(x), cpu.from_host(u));
    const std::vector<std::int64_t> got = out.to_host<std::int64_t>();
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t best = 0;
      float best_d = 1e30f;
      for (int c = 0; c < 16; ++c) {
        const float d = (x[std::size_t(i)] - float(c)) * (x[std::size_t(i)] - float(c));
        if (d < best_d) best_d = d, best = c;
      }
      const bool flip = x[std::size_t(i)] > 100.0f;
      const std::vector<std::int64_t> want = {
          best,        flip ? kI32Min : kI32Max, flip ? kI32Max : kI32Min,       best,
          kI32Max + 1, i * 1000000000,           std::int64_t(u[std::size_t(i)])};
      for (std::size_t j = 0; j < 7; ++j)
        EXPECT_EQ(got[std::size_t(i) * 7 + j], want[j]) << "n " << n << ", item " << i << ", column " << j;
    }
  }
}

}  // namespace
