// The SIMD path's rows of plain adds (src/codegen/llvm/llvm_gang_row_adds.cpp): consecutive plain adds into one row
// a few elements apart run as one, carried from gang to gang at the top of the body and merged within the gang
// elsewhere. Whatever the offsets, their order, adds and subs, the dtype, the row length against the gang, the
// launch's fan-out over threads and the mask, every element must get exactly the sum the adds give one by one.
// unit.cpu_scalar_path runs the sums on the scalar path too.
#include <tack/autodiff.hpp>
#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;

enum class Around { Top, InsideAnIf, ResultsRead };

struct Pattern {
  std::vector<int> offsets;  // x(i, j + offset) gets ±(k + 1) * vals(i, j), in this order
  std::vector<bool> subs;
};

int span_of(const Pattern& p) { return *std::max_element(p.offsets.begin(), p.offsets.end()); }

tack::Kernel row_kernel(const std::string& name, const Pattern& p, Around around) {
  return tack::kernel(name, [p, around](Array x, Array vals, Array cond, Array olds) {
    const int span = span_of(p);
    parallel_for({x.shape(0), x.shape(1) - span}, [&](Index i, Index j) {
      auto adds = [&] {
        for (std::size_t k = 0; k < p.offsets.size(); ++k) {
          Value at = i * x.shape(1) + (j + p.offsets[k]);
          Value v = vals(i, j) * static_cast<float>(k + 1);
          Value old = p.subs[k] ? atomic_sub(x, at, v) : atomic_add(x, at, v);
          if (around == Around::ResultsRead && k == 0) olds(i, j) = old;
        }
      };
      if (around == Around::InsideAnIf)
        if_(cond(i, j) > 0.5f, adds);
      else
        adds();
    });
  });
}

// Integers throughout, so every order of the adds gives the same sums.
template <class T>
void check_sums(const Pattern& p, Around around, DType dtype, const tack::Kernel& k, std::int64_t rows,
                std::int64_t cols, int& wrong) {
  tack::Device cpu = tack::device("cpu");
  const int span = span_of(p);
  const std::int64_t width = cols + span;
  std::vector<T> x0(static_cast<std::size_t>(rows * width)), vals(static_cast<std::size_t>(rows * cols));
  std::vector<float> cond(vals.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < width; ++c) x0[static_cast<std::size_t>(r * width + c)] = T(r * 100 + c % 37);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      vals[static_cast<std::size_t>(r * cols + c)] = T((r * 7 + c * 3) % 11 - 5);
      cond[static_cast<std::size_t>(r * cols + c)] = (r + c * c) % 3 == 0 ? 0.0f : 1.0f;
    }
  std::vector<T> want = x0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      if (around == Around::InsideAnIf && cond[static_cast<std::size_t>(r * cols + c)] <= 0.5f) continue;
      for (std::size_t q = 0; q < p.offsets.size(); ++q) {
        const T v = vals[static_cast<std::size_t>(r * cols + c)] * T(q + 1);
        T& e = want[static_cast<std::size_t>(r * width + c + p.offsets[q])];
        e = p.subs[q] ? e - v : e + v;
      }
    }
  tack::Array x = cpu.from_host(x0, {rows, width});
  tack::Array tvals = cpu.from_host(vals, {rows, cols});
  tack::Array tcond = cpu.from_host(cond, {rows, cols});
  tack::Array olds = cpu.zeros(dtype, {rows, cols});
  k(x, tvals, tcond, olds);
  const std::vector<T> got = x.to_host<T>();
  for (std::size_t e = 0; e < got.size(); ++e)
    if (got[e] != want[e]) {
      if (wrong < 5)
        ADD_FAILURE() << "offsets[0] " << p.offsets[0] << ", " << p.offsets.size() << " adds, rows " << rows << " cols "
                      << cols << ": element " << e << " is " << double(got[e]) << ", not " << double(want[e]);
      ++wrong;
    }
}

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> all = {
      {{2, 0}, {false, false}},                    // a stencil adjoint's row, highest offset first
      {{0, 2}, {false, false}},                    // the other order
      {{1, 3, 0, 2}, {false, true, true, false}},  // adds and subs interleaved
      {{0, 0, 1}, {false, false, true}},           // one element twice
      {{7, 0}, {false, false}},                    // the widest a gang of 8 floats merges; 4 doubles do not
      {{0, 5, 9}, {false, false, false}},          // the last too far for one row of adds
      {{3}, {false}},                              // alone
  };
  return all;
}

TEST(CpuRowAdds, EveryElementAddsUpExactly) {
  int wrong = 0;
  const std::vector<std::int64_t> lengths = {1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 23, 31, 33, 100};
  for (std::size_t n = 0; n < patterns().size(); ++n)
    for (Around around : {Around::Top, Around::InsideAnIf, Around::ResultsRead}) {
      const Pattern& p = patterns()[n];
      const std::string name = "row_adds_" + std::to_string(n) + "_" + std::to_string(static_cast<int>(around));
      const tack::Kernel k = row_kernel(name, p, around);
      for (std::int64_t cols : lengths) {
        check_sums<float>(p, around, DType::F32, k, 3, cols, wrong);
        check_sums<double>(p, around, DType::F64, k, 2, cols, wrong);
      }
    }
  EXPECT_EQ(wrong, 0);
}

TEST(CpuRowAdds, LaunchesThatFanOutAddUpExactly) {
  // Enough rows that the launch runs in row blocks on every thread of the pool; rows of a gang and a bit.
  int wrong = 0;
  for (std::size_t n = 0; n < 3; ++n) {
    const tack::Kernel k = row_kernel("row_adds_fan_" + std::to_string(n), patterns()[n], Around::Top);
    check_sums<float>(patterns()[n], Around::Top, DType::F32, k, 600, 45, wrong);
    check_sums<float>(patterns()[n], Around::Top, DType::F32, k, 50, 4099, wrong);
  }
  EXPECT_EQ(wrong, 0);
}

TEST(CpuRowAdds, OneDimensionalLaunchesThatFanOutAddUpExactly) {
  // A 1-D launch is one row, split into chunks over the pool's threads: what a chunk's last gang carries goes into
  // the next chunk's first elements, which the other color of blocks adds into.
  auto k = tack::kernel("row_adds_1d", [](Array x, Array vals) {
    parallel_for(vals.size(), [&](Index i) {
      atomic_add(x, i + 3, vals[i]);
      atomic_sub(x, i, 2.0f * vals[i]);
      atomic_add(x, i + 1, 3.0f * vals[i]);
    });
  });
  tack::Device cpu = tack::device("cpu");
  int wrong = 0;
  for (std::int64_t n : {std::int64_t{5}, std::int64_t{4099}, std::int64_t{200003}}) {
    std::vector<float> x0(static_cast<std::size_t>(n + 3)), vals(static_cast<std::size_t>(n));
    for (std::size_t e = 0; e < x0.size(); ++e) x0[e] = float(e % 41);
    for (std::size_t e = 0; e < vals.size(); ++e) vals[e] = float(int(e % 9) - 4);
    std::vector<float> want = x0;
    for (std::size_t e = 0; e < vals.size(); ++e) {
      want[e + 3] += vals[e];
      want[e] -= 2.0f * vals[e];
      want[e + 1] += 3.0f * vals[e];
    }
    tack::Array x = cpu.from_host(x0);
    k(x, cpu.from_host(vals));
    const std::vector<float> got = x.to_host<float>();
    for (std::size_t e = 0; e < got.size(); ++e) wrong += got[e] != want[e];
  }
  EXPECT_EQ(wrong, 0);
}

TEST(CpuRowAdds, AStencilAdjointsRowCarriesFromGangToGang) {
  if (const char* simd = std::getenv("TACK_CPU_SIMD"); simd && std::string(simd) == "0")
    GTEST_SKIP() << "TACK_CPU_SIMD=0: the scalar path has no gangs";
  auto jacobi = tack::kernel("jacobi_row_adds", [](Array out, Array in) {
    parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
      out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
    });
  });
  const tack::ArraySpec f{DType::F32, 2};
  const std::string source = tack::inspect(tack::adjoint(jacobi), "cpu", f, f, f, f).source;
  // Row i + 1's two adds (j + 2 and j) carry, one register each; rows i and i + 2 have one add each, alone.
  EXPECT_NE(source.find("%carried = alloca"), std::string::npos) << source;
  EXPECT_NE(source.find("%carried1 = alloca"), std::string::npos) << source;
  EXPECT_EQ(source.find("%carried2 = alloca"), std::string::npos) << source;
  EXPECT_NE(source.find("carried.add"), std::string::npos) << source;
}

}  // namespace
