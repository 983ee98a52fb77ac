// parallel_for over 1 to 4 dimensions: body(i, j, ...) runs once for each index
// tuple, and a(i, j, ...) addresses a C-contiguous array (the last index
// fastest). Ranges are expressions of the parameters (shape(d) - 2, a Scalar);
// an empty range runs nothing. Loop indices and sizes are 64-bit signed: an
// index expression past 2^31 is computed without overflow.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(NdParallel);

TEST_P(NdParallel, TwoDimensions) {
  auto k = tack::kernel("nd2", [](Array out, Array flat) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index i, Index j) {
      out(i, j) = i * 100 + j;
      flat[i * out.shape(1) + j] = out(i, j) + 1;  // the same element, through its flat index
    });
  });
  const std::int64_t I = 4, J = 7;
  std::vector<std::int32_t> want;
  for (std::int64_t i = 0; i < I; ++i)
    for (std::int64_t j = 0; j < J; ++j) want.push_back(static_cast<std::int32_t>(i * 100 + j));
  for (std::int64_t i = 0; i < I * J; ++i) want.push_back(want[i] + 1);
  expect_exact(
      "out(i, j) = 100 i + j",
      [&](const tack::Device& d) {
        tack::Array out = d.zeros(tack::DType::I32, {I, J});
        tack::Array flat = zeros<std::int32_t>(d, I * J);
        k(out, flat);
        std::vector<std::int32_t> r = out.to_host<std::int32_t>();
        for (auto v : flat.to_host<std::int32_t>()) r.push_back(v);
        return r;
      },
      want);
}

TEST_P(NdParallel, ThreeAndFourDimensions) {
  auto k3 = tack::kernel("nd3", [](Array out) {
    parallel_for({out.shape(0), out.shape(1), out.shape(2)},
                 [&](Index i, Index j, Index k) { out(i, j, k) = i * 100 + j * 10 + k; });
  });
  auto k4 = tack::kernel("nd4", [](Array out) {
    parallel_for({out.shape(0), out.shape(1), out.shape(2), out.shape(3)},
                 [&](Index i, Index j, Index k, Index l) { out(i, j, k, l) = i * 1000 + j * 100 + k * 10 + l; });
  });
  {
    const std::int64_t A = 3, B = 4, C = 5;
    std::vector<std::int64_t> want;
    for (std::int64_t i = 0; i < A; ++i)
      for (std::int64_t j = 0; j < B; ++j)
        for (std::int64_t k = 0; k < C; ++k) want.push_back(i * 100 + j * 10 + k);
    expect_exact(
        "out(i, j, k) = 100 i + 10 j + k",
        [&](const tack::Device& d) {
          tack::Array out = d.zeros(tack::DType::I64, {A, B, C});
          k3(out);
          return out.to_host<std::int64_t>();
        },
        want);
  }
  {
    const std::int64_t A = 2, B = 3, C = 4, D = 5;
    std::vector<std::int64_t> want;
    for (std::int64_t i = 0; i < A; ++i)
      for (std::int64_t j = 0; j < B; ++j)
        for (std::int64_t k = 0; k < C; ++k)
          for (std::int64_t l = 0; l < D; ++l) want.push_back(i * 1000 + j * 100 + k * 10 + l);
    expect_exact(
        "out(i, j, k, l) = 1000 i + 100 j + 10 k + l",
        [&](const tack::Device& d) {
          tack::Array out = d.zeros(tack::DType::I64, {A, B, C, D});
          k4(out);
          return out.to_host<std::int64_t>();
        },
        want);
  }
}

// Ranges that are expressions: the interior of a 2-D array, and a Scalar count.
TEST_P(NdParallel, RangesAreExpressionsOfTheParameters) {
  auto interior = tack::kernel("nd_interior", [](Array out) {
    parallel_for({out.shape(0) - 2, out.shape(1) - 2}, [&](Index i, Index j) { out(i + 1, j + 1) = 1; });
  });
  auto first_n =
      tack::kernel("first_n", [](Array out, Scalar n) { parallel_for(n, [&](Index i) { out[i] = i + 1; }); });
  const std::int64_t H = 4, W = 5;
  std::vector<std::int32_t> want(H * W, 0);
  for (std::int64_t i = 1; i < H - 1; ++i)
    for (std::int64_t j = 1; j < W - 1; ++j) want[i * W + j] = 1;
  expect_exact(
      "interior of a 4 x 5 array",
      [&](const tack::Device& d) {
        tack::Array out = d.zeros(tack::DType::I32, {H, W});
        interior(out);
        return out.to_host<std::int32_t>();
      },
      want);
  expect_exact(
      "parallel_for(n) with n = 3, then n = 0 (nothing runs), then int64_t n = 5",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 6);
        first_n(out, 3);
        std::vector<std::int64_t> r = out.to_host<std::int64_t>();
        out.fill(std::int64_t{-1});
        first_n(out, 0);
        for (auto v : out.to_host<std::int64_t>()) r.push_back(v);
        first_n(out, std::int64_t{5});
        for (auto v : out.to_host<std::int64_t>()) r.push_back(v);
        return r;
      },
      std::vector<std::int64_t>{1, 2, 3, 0, 0, 0, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 5, -1});
}

// Indices and sizes are i64: no expression here may wrap at 2^31 or 2^32.
TEST_P(NdParallel, IndexArithmeticIs64Bit) {
  auto k = tack::kernel("index_64", [](Array out, Scalar big) {
    parallel_for(out.size() / 5, [&](Index i) {
      out[5 * i] = i * 3000000000;
      out[5 * i + 1] = (i + 2147483647) * 2;
      out[5 * i + 2] = big + i;
      out[5 * i + 3] = out.size() * 1000000000 + i;
      Var s = 0;
      for_range(3000000000 + i, 3000000003 + i, [&](Index j) { s += j; });
      out[5 * i + 4] = s;
    });
  });
  const std::int64_t n = 4;
  std::vector<std::int64_t> want;
  for (std::int64_t i = 0; i < n; ++i) {
    want.push_back(i * 3000000000LL);
    want.push_back((i + 2147483647LL) * 2);
    want.push_back(5000000000LL + i);
    want.push_back(5 * n * 1000000000LL + i);
    want.push_back(3 * (3000000000LL + i) + 3);
  }
  EXPECT_EQ(want[5], 3000000000LL);  // i = 1: past 2^31
  expect_exact(
      "i * 3000000000, (i + 2^31 - 1) * 2, a large Scalar + i, size * 1e9, for_range past 2^31",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 5 * n);
        k(out, std::int64_t{5000000000LL});
        return out.to_host<std::int64_t>();
      },
      want, [](std::size_t i) { return "i = " + std::to_string(i / 5) + ", output " + std::to_string(i % 5); });
}

}  // namespace
