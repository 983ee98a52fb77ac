// The CPU's plain adds (src/analysis/row_scatter): which atomic adds the analysis lets run as plain
// read-modify-writes and with what span, that the generated code then has no atomic instruction for them, and
// that launches large enough to fan out over the pool, run in two colors of row blocks, add up exactly.
// unit.cpu_scalar_path runs these on the scalar path too.
#include "analysis/row_scatter.hpp"
#include "backends/cpu/row_blocks.hpp"
#include "support/typed_kernel.hpp"

#include <tack/autodiff.hpp>
#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;
using tack::analysis::plan_row_scatter;
using tack_test::typed_kernel;

// x(i + 2, j + 1) += v, x(i, j) -= v, and every work-item of row i into y(i, 0) (span 0 for y).
tack::Kernel row_offsets() {
  return tack::kernel("rows", [](Array x, Array y, Scalar v) {
    parallel_for({x.shape(0) - 2, x.shape(1) - 1}, [&](Index i, Index j) {
      atomic_add(x, (i + 2) * x.shape(1) + (j + 1), v);
      atomic_sub(x, i * x.shape(1) + j, v);
      atomic_add(y, i * y.shape(1), v);
    });
  });
}

// Column j + 2 over a launch one column narrower than the array reaches into the next row at its last column.
tack::Kernel into_next_row() {
  return tack::kernel("next_row", [](Array x, Scalar v) {
    parallel_for({x.shape(0), x.shape(1) - 1}, [&](Index i, Index j) { atomic_add(x, i * x.shape(1) + (j + 2), v); });
  });
}

TEST(CpuRowScatter, AddsAtConstantRowOffsetsArePlainWithTheirSpan) {
  const tack::analysis::RowScatter plan =
      plan_row_scatter(typed_kernel(row_offsets(), {{DType::F32, 2}, {DType::F64, 2}, {DType::F32, 0}}));
  EXPECT_EQ(plan.plain, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(plan.span, 2);
}

TEST(CpuRowScatter, AnyOtherAccessOrIndexKeepsTheAtomics) {
  // A flat index not in rows, a row from data, a read of the array, an integer array, an atomic max: atomics stay.
  auto k =
      tack::kernel("mixed", [](Array a, Array b, Array c, ArrayOf<std::int32_t> n, Array m, ArrayOf<std::int32_t> idx) {
        parallel_for({a.shape(0), a.shape(1)}, [&](Index i, Index j) {
          Value w = a.shape(1);
          atomic_add(a, i * w + j + 1, 1.0f);
          atomic_add(b, idx[i] * w + j, 1.0f);
          atomic_add(c, i * w + j, c(i, j));
          atomic_add(n, i * w + j, 1);
          atomic_max(m, i * w + j, 1.0f);
        });
      });
  const tack::analysis::RowScatter plan = plan_row_scatter(typed_kernel(
      k, {{DType::F32, 2}, {DType::F32, 2}, {DType::F32, 2}, {DType::I32, 2}, {DType::F32, 2}, {DType::I32, 1}}));
  EXPECT_EQ(plan.plain, std::vector<bool>(6, false));
  EXPECT_EQ(plan.span, -1);
}

TEST(CpuRowScatter, TheCodeHasNoAtomicInstructionForPlainAdds) {
  const tack::ArraySpec f{DType::F32, 2};
  const std::string plain = tack::inspect(row_offsets(), "cpu", f, tack::ArraySpec{DType::F64, 2}, 1.0f).source;
  EXPECT_EQ(plain.find("atomicrmw"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("cmpxchg"), std::string::npos) << plain;
  EXPECT_EQ(plan_row_scatter(typed_kernel(into_next_row(), {{DType::F32, 2}, {DType::F32, 0}})).span, -1);
  const std::string atomic = tack::inspect(into_next_row(), "cpu", f, 1.0f).source;
  EXPECT_NE(atomic.find("atomicrmw"), std::string::npos) << atomic;
  // A stencil's adjoint scatters into its input's gradient at rows i, i + 1 and i + 2.
  auto jacobi = tack::kernel("jacobi", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
    });
  });
  const std::string adjoint = tack::inspect(tack::adjoint(jacobi), "cpu", f, f, f, f).source;
  EXPECT_EQ(adjoint.find("atomicrmw"), std::string::npos) << adjoint;
  EXPECT_EQ(adjoint.find("cmpxchg"), std::string::npos) << adjoint;
}

TEST(CpuRowScatter, AnAdjointsScatterIntoOneRowRunsNextToEachOtherFromItsHighestOffset) {
  // autodiff::order_scatters: in(i + 1, j + 2)'s add right before in(i + 1, j)'s, whatever order the reads came in,
  // so the SIMD path runs them as one row of adds (test_cpu_row_adds.cpp; docs/autodiff.md, "Cost").
  auto jacobi = tack::kernel("jacobi_order", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25f * (in(i + 1, j) + in(i, j + 1) + in(i + 1, j + 2) + in(i + 2, j + 1));
    });
  });
  const tack::ArraySpec f{DType::F32, 2};
  const std::string ir = tack::inspect(tack::adjoint(jacobi), "cpu", f, f, f, f).typed_ir;
  const std::size_t right =
      ir.find("atomic_add %3[add.i64(mul.i64(add.i64(index0, i64(1)), shape(%1, 1)), add.i64(index1, i64(2)))]");
  const std::size_t left = ir.find("atomic_add %3[add.i64(mul.i64(add.i64(index0, i64(1)), shape(%1, 1)), index1)]");
  ASSERT_NE(right, std::string::npos) << ir;
  ASSERT_NE(left, std::string::npos) << ir;
  EXPECT_LT(right, left) << ir;
  const std::size_t next_line = ir.find('\n', right) + 1;
  EXPECT_EQ(ir.find("atomic_add", next_line), left) << ir;
}

TEST(CpuRowScatter, BlocksOfOneColorNeverReachTheSameRow) {
  // Every launch row in exactly one block; a work-item on row r adds into rows r + lo .. r + lo + span, so the
  // rows two blocks of one color reach are disjoint.
  using tack::backends::cpu::row_blocks;
  int checked = 0;
  for (std::int64_t outer : {1, 2, 3, 5, 8, 17, 100, 1000, 4099})
    for (std::int64_t span : {1, 2, 3, 7, 40})
      for (int threads : {1, 2, 3, 8, 64}) {
        const auto b = row_blocks(outer, span, threads);
        SCOPED_TRACE(std::to_string(outer) + " rows, span " + std::to_string(span) + ", " + std::to_string(threads) +
                     " threads");
        if (b.blocks < 2) {
          EXPECT_TRUE(threads < 2 || outer < 2 * span);
          continue;
        }
        std::int64_t covered = 0;
        for (std::int64_t k = 0; k < b.blocks; ++k) {
          ASSERT_EQ(b.first_row(k), covered);
          ASSERT_GT(b.end_row(k, outer), b.first_row(k));
          covered = b.end_row(k, outer);
          if (k + 2 < b.blocks) {
            // The highest row block k reaches is below the lowest row block k + 2 reaches.
            EXPECT_LT(b.end_row(k, outer) - 1 + span, b.first_row(k + 2));
          }
        }
        EXPECT_EQ(covered, outer);
        EXPECT_LE(b.blocks, 2 * threads);
        ++checked;
      }
  EXPECT_GT(checked, 50);
}

TEST(CpuRowScatter, LaunchesThatFanOutAddUpExactly) {
  // Whole numbers, so every order of the adds gives the same sums; enough launches that the pool fans out
  // (the variant's first launches time a serial prefix) and blocks meet at many row boundaries.
  const std::int64_t rows = 2000, cols = 131;
  tack::Device cpu = tack::device("cpu");
  tack::Array x = cpu.zeros(DType::F32, {rows, cols}), y = cpu.zeros(DType::F64, {rows, cols});
  tack::Kernel k = row_offsets();
  const int launches = 40;
  for (int n = 0; n < launches; ++n) k(x, y, 1.0f);
  const std::vector<float> got = x.to_host<float>();
  const std::vector<double> per_row = y.to_host<double>();
  int wrong = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      // + from work-item (r - 2, c - 1), - from (r, c).
      const bool plus = r >= 2 && c >= 1, minus = r < rows - 2 && c < cols - 1;
      const float want = static_cast<float>(launches * ((plus ? 1 : 0) - (minus ? 1 : 0)));
      const double want_y = c == 0 && r < rows - 2 ? double(launches) * double(cols - 1) : 0.0;
      wrong += got[static_cast<size_t>(r * cols + c)] != want;
      wrong += per_row[static_cast<size_t>(r * cols + c)] != want_y;
    }
  EXPECT_EQ(wrong, 0);
}

TEST(CpuRowScatter, AliasedArraysKeepTheAtomicsAndTheSums) {
  // The same array twice: the call is not proven disjoint, so the variant keeps atomics and runs as any other.
  const std::int64_t rows = 300, cols = 64;
  tack::Device cpu = tack::device("cpu");
  tack::Array x = cpu.zeros(DType::F32, {rows, cols});
  auto k = tack::kernel("rows_aliased", [](Array a, Array b) {
    parallel_for({a.shape(0) - 1, a.shape(1)}, [&](Index i, Index j) {
      atomic_add(a, (i + 1) * a.shape(1) + j, 1.0f);
      atomic_add(b, i * b.shape(1) + j, 1.0f);
    });
  });
  for (int n = 0; n < 20; ++n) k(x, x);
  const std::vector<float> got = x.to_host<float>();
  int wrong = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      wrong += got[static_cast<size_t>(r * cols + c)] != 20.0f * float((r >= 1 ? 1 : 0) + (r < rows - 1 ? 1 : 0));
  EXPECT_EQ(wrong, 0);
}

}  // namespace
