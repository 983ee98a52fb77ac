// shape(d) with a negative d counts from the end, as Python's a.shape[-1]: the
// kernel is traced once, so which dimension shape(-1) names is settled for each
// call's rank.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(ShapeFromTheEnd);

TEST_P(ShapeFromTheEnd, NamesTheDimensionOfEachCallsRank) {
  auto k = tack::kernel("last_dims", [](Array out, Array a) {
    parallel_for(1, [&](Index i) {
      out[0] = a.shape(-1);
      out[1] = a.size() / a.shape(-1);  // the product of the others
    });
  });
  auto run = [&](const std::vector<std::int64_t>& shape) {
    return [&, shape](const tack::Device& d) {
      tack::Array out = zeros<std::int64_t>(d, 2);
      k(out, d.zeros(tack::DType::F32, shape));
      return out.to_host<std::int64_t>();
    };
  };
  expect_exact("rank 1", run({7}), std::vector<std::int64_t>{7, 1});
  expect_exact("rank 2", run({3, 5}), std::vector<std::int64_t>{5, 3});
  expect_exact("rank 4", run({2, 3, 4, 6}), std::vector<std::int64_t>{6, 24});
}

TEST_P(ShapeFromTheEnd, IndexesAnArrayFromItsLastDimensions) {
  // out(i, j) = i * 10 + j over the last two dimensions, whatever they are called from the front.
  auto k = tack::kernel("rows_and_columns", [](Array out) {
    parallel_for({out.shape(-2), out.shape(-1)}, [&](Index i, Index j) { out(i, j) = i * 10 + j; });
  });
  expect_exact(
      "out(i, j) over shape(-2) x shape(-1)",
      [&](const tack::Device& d) {
        tack::Array out = d.zeros(tack::DType::I32, {2, 3});
        k(out);
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{0, 1, 2, 10, 11, 12});
}

TEST_P(ShapeFromTheEnd, EveryNegativeDimOfARank4Array) {
  auto k = tack::kernel("all_from_end", [](Array out, Array a) {
    parallel_for(1, [&](Index) {
      out[0] = a.shape(-4);
      out[1] = a.shape(-3);
      out[2] = a.shape(-2);
      out[3] = a.shape(-1);
    });
  });
  expect_exact(
      "shape(-4) .. shape(-1)",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 4);
        k(out, d.zeros(tack::DType::U8, {2, 3, 4, 5}));
        return out.to_host<std::int64_t>();
      },
      std::vector<std::int64_t>{2, 3, 4, 5});
}

}  // namespace
