// The CPU's min/max folds (src/analysis/min_max_folds, src/codegen/llvm/llvm_min_max_folds.cpp): which loops are
// folds, that the scalar path probes them over integer keys, and that every row, including those where the order
// of the fold shows (zeros of both signs, NaNs of both signs, no number at all, empty rows), gets the bits the
// loop as written gives. unit.cpu_scalar_path runs these with TACK_CPU_SIMD=0 too.
#include "analysis/min_max_folds.hpp"
#include "backends/cpu/jit.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;
using tack::analysis::min_max_fold;
using tack_test::typed_kernel;

// out[r] = the fold of row r's first len[r] elements, from init[r]: max or min, the Var first or second.
template <bool kMax, bool kVarFirst>
tack::Kernel row_fold(const char* name) {
  return tack::kernel(name, [](Array out, Array x, Array init, Array len, Scalar cols) {
    parallel_for(out.size(), [&](Index r) {
      Var m = init[r];
      for_range(0, len[r], [&](Index j) {
        Value e = x[r * cols + j];
        if constexpr (kMax)
          m = kVarFirst ? max(m, e) : max(e, m);
        else
          m = kVarFirst ? min(m, e) : min(e, m);
      });
      out[r] = m;
    });
  });
}

// The loop of a typed kernel's body whose fold is asked about: the first For in it.
const tack::ir::For* first_loop(const tack::ir::Stmt& s) {
  if (!s) return nullptr;
  if (auto f = s.as<tack::ir::For>()) {
    if (auto inner = first_loop(f->body)) return inner;
    return f;
  }
  if (auto b = s.as<tack::ir::Block>())
    for (const tack::ir::Stmt& x : b->stmts)
      if (auto f = first_loop(x)) return f;
  return nullptr;
}

std::vector<tack::passes::ParamType> fold_types(DType t) {
  return {{t, 1}, {t, 1}, {t, 1}, {DType::I32, 1}, {DType::I64, 0}};
}

TEST(CpuMinMaxFolds, WhichLoopsAreFolds) {
  for (DType t : {DType::F32, DType::F64}) {
    const tack::ir::Kernel max_v = typed_kernel(row_fold<true, true>("max_v"), fold_types(t));
    const tack::ir::Kernel max_e = typed_kernel(row_fold<true, false>("max_e"), fold_types(t));
    const tack::ir::Kernel min_v = typed_kernel(row_fold<false, true>("min_v"), fold_types(t));
    auto a = min_max_fold(*first_loop(max_v.body), max_v);
    auto b = min_max_fold(*first_loop(max_e.body), max_e);
    auto c = min_max_fold(*first_loop(min_v.body), min_v);
    ASSERT_TRUE(a && b && c);
    EXPECT_TRUE(a->is_max && a->var_first);
    EXPECT_TRUE(b->is_max && !b->var_first);
    EXPECT_TRUE(!c->is_max && c->var_first);
  }
  // Integers need no probe (LLVM folds them in vectors as they are).
  const tack::ir::Kernel ints =
      typed_kernel(row_fold<true, true>("max_i"),
                   {{DType::I32, 1}, {DType::I32, 1}, {DType::I32, 1}, {DType::I32, 1}, {DType::I64, 0}});
  EXPECT_FALSE(min_max_fold(*first_loop(ints.body), ints));
  // A loop that also stores, or folds in a value that depends on the Var, or reads the Var elsewhere, is no fold.
  auto stores = tack::kernel("stores", [](Array y, Array x) {
    parallel_for(1, [&](Index) {
      Var m = x[0];
      for_range(0, x.size(), [&](Index j) {
        m = max(m, x[j]);
        y[j] = m;
      });
    });
  });
  auto feeds_back = tack::kernel("feeds_back", [](Array y, Array x) {
    parallel_for(1, [&](Index) {
      Var m = x[0];
      for_range(0, x.size(), [&](Index j) { m = max(m, x[j] - m * 0.5f); });
      y[0] = m;
    });
  });
  auto reads_elsewhere = tack::kernel("reads_elsewhere", [](Array y, Array x) {
    parallel_for(1, [&](Index) {
      Var m = x[0], s = 0.0f;
      for_range(0, x.size(), [&](Index j) {
        s = s + m;
        m = max(m, x[j]);
      });
      y[0] = m + s;
    });
  });
  for (const tack::Kernel* k : {&stores, &feeds_back, &reads_elsewhere}) {
    const tack::ir::Kernel typed = typed_kernel(*k, {{DType::F32, 1}, {DType::F32, 1}});
    EXPECT_FALSE(min_max_fold(*first_loop(typed.body), typed)) << k->name();
  }
}

TEST(CpuMinMaxFolds, TheScalarPathProbesOverIntegerKeys) {
  tack::backends::cpu::Jit& jit = tack::backends::cpu::shared_jit();
  const tack::ir::Kernel max_v = typed_kernel(row_fold<true, true>("max_v"), fold_types(DType::F32));
  const tack::ir::Kernel min_e = typed_kernel(row_fold<false, false>("min_e"), fold_types(DType::F64));
  const std::string max_text = jit.ir_text(max_v, {.simd = false});
  const std::string min_text = jit.ir_text(min_e, {.simd = false});
  EXPECT_NE(max_text.find("fold.head"), std::string::npos) << max_text;
  EXPECT_NE(max_text.find("@llvm.smax.i32"), std::string::npos) << max_text;
  EXPECT_NE(min_text.find("@llvm.smin.i64"), std::string::npos) << min_text;
  // The loop as written stays, for the rows the probe does not answer.
  EXPECT_NE(max_text.find("for.head"), std::string::npos) << max_text;
}

// The fold as docs/semantics.md defines min and max: a NaN operand yields the other, of equal operands the first.
template <class T>
T reference_fold(bool is_max, bool var_first, T m, const T* row, int n) {
  auto op = [&](T a, T c) {
    if (std::isnan(a)) return c;
    return (is_max ? a < c : c < a) ? c : a;
  };
  for (int j = 0; j < n; ++j) m = var_first ? op(m, row[j]) : op(row[j], m);
  return m;
}

template <class T>
T nan_with(bool negative, std::uint64_t payload) {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<T>(std::uint32_t((negative ? 0xffc00000u : 0x7fc00000u) | (payload & 0x3fffffu)));
  else
    return std::bit_cast<T>((negative ? 0xfff8000000000000ull : 0x7ff8000000000000ull) | (payload & 0xffffffffull));
}

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Rows where the order shows, and rows where it does not, of lengths around a vector's.
template <class T>
void check_every_row(DType t) {
  constexpr int kCols = 300;
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<std::vector<T>> rows;
  std::vector<T> inits;
  auto add = [&](std::vector<T> row, T init) {
    rows.push_back(std::move(row));
    inits.push_back(init);
  };
  std::uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return T(int(seed >> 8) % 20001 - 10000) / T(128);
  };
  for (int n : {1, 7, 16, 17, 33, 64, 129, kCols}) {
    std::vector<T> row(n);
    for (T& v : row) v = next();
    add(row, -inf);
    add(row, nan_with<T>(false, 1));
    add(row, T(0));
    row.back() = T(1000);  // the answer in the tail
    add(row, -inf);
    row.front() = T(-1000);
    add(row, inf);
  }
  const T pz = T(0), nz = -T(0);
  add({nz, pz, nz}, -inf);
  add({pz, nz, pz}, -inf);
  add({-T(3), nz, -T(1), pz}, -inf);
  add({-T(3), -T(2)}, pz);  // the Var's zero is the max
  add({-T(3), -T(2)}, nz);
  add({T(3), T(2)}, nz);  // the Var's zero is the min
  add({pz, T(5), nz}, T(5));
  add({T(2), nan_with<T>(false, 3), T(7)}, -inf);  // a NaN the key's max sees
  add({T(2), nan_with<T>(true, 4), T(7)}, -inf);   // one the key's min sees
  add({nan_with<T>(true, 5), nan_with<T>(false, 6), nan_with<T>(true, 7)}, nan_with<T>(false, 8));
  add({nan_with<T>(false, 9)}, T(4));
  add({-inf, -inf}, -inf);
  add({inf, inf}, nan_with<T>(true, 10));
  add({-inf, T(1), inf}, nan_with<T>(false, 11));
  add({std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min()}, -inf);
  add({}, nan_with<T>(false, 12));
  add({}, nz);
  add({}, T(3));

  const int nrows = int(rows.size());
  std::vector<T> x(std::size_t(nrows) * kCols, T(-77));
  std::vector<std::int32_t> len(nrows);
  for (int r = 0; r < nrows; ++r) {
    len[r] = std::int32_t(rows[r].size());
    for (std::size_t j = 0; j < rows[r].size(); ++j) x[std::size_t(r) * kCols + j] = rows[r][j];
  }
  tack::Device cpu = tack::device("cpu");
  const tack::Array dx = cpu.from_host(x), dinit = cpu.from_host(inits), dlen = cpu.from_host(len);
  const tack::Kernel kernels[4] = {row_fold<true, true>("fold_max_v"), row_fold<true, false>("fold_max_e"),
                                   row_fold<false, true>("fold_min_v"), row_fold<false, false>("fold_min_e")};
  for (int which = 0; which < 4; ++which) {
    const bool is_max = which < 2, var_first = which % 2 == 0;
    tack::Array out = cpu.zeros(t, {nrows});
    kernels[which](out, dx, dinit, dlen, std::int64_t(kCols));
    const std::vector<T> got = out.to_host<T>();
    for (int r = 0; r < nrows; ++r) {
      const T want = reference_fold(is_max, var_first, inits[r], rows[r].data(), len[r]);
      EXPECT_EQ(std::bit_cast<Bits<T>>(got[r]), std::bit_cast<Bits<T>>(want))
          << kernels[which].name() << " row " << r << ": got " << got[r] << ", want " << want;
    }
  }
}

TEST(CpuMinMaxFolds, EveryRowGetsTheWrittenFoldsBits) {
  check_every_row<float>(DType::F32);
  check_every_row<double>(DType::F64);
}

}  // namespace
