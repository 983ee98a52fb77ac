// What a kernel assumes of an array's rank, refused at the call that breaks it:
// a shape dimension beyond the call's rank (counted from the front or, when
// negative, from the end) and a rank the traced code requires (Python's
// `h, w = a.shape`, lang::detail::require_rank), each naming the argument, the
// rank and the line.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

TEST(ArrayRanks, ShapeFromTheEndBeyondTheRank) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel("third_from_end",
                        [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a.shape(-3); }); });
  auto dev = tack::device("interp");
  auto out = dev.zeros(tack::DType::I64, {2});
  EXPECT_TACK_ERROR(k(out, dev.zeros(tack::DType::F32, {2, 3})), tack::IndexError, "kernel 'third_from_end'",
                    "array_ranks.cpp:" + std::to_string(line), "shape(-3) of argument 1, which has rank 2 here",
                    "0 to 1, or -2 to -1 from the end");
  // The same kernel is fine for a call whose rank has a third dimension from the end.
  EXPECT_NO_THROW(k(out, dev.zeros(tack::DType::F32, {4, 2, 3})));
  EXPECT_EQ(out.to_host<std::int64_t>()[0], 4);
}

TEST(ArrayRanks, ShapeBeyondTheRank) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel("third",
                        [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = a.shape(2); }); });
  auto dev = tack::device("interp");
  EXPECT_TACK_ERROR(k(dev.zeros(tack::DType::I64, {2}), dev.zeros(tack::DType::F32, {2})), tack::IndexError,
                    "array_ranks.cpp:" + std::to_string(line), "shape(2) of argument 1, which has rank 1 here");
}

TEST(ArrayRanks, ShapeBeyondFourDimensionsAtTrace) {
  auto k = tack::kernel("fifth_from_end", [](Array out) { parallel_for(out.shape(-5), [&](Index i) { out[i] = 0; }); });
  EXPECT_TACK_ERROR(k(tack::device("interp").zeros(tack::DType::F32, {2})), tack::InvalidArgument,
                    "shape(-5) of argument 0", "numbered 0 to 3, or -1 to -4 from the end");
}

TEST(ArrayRanks, ARequiredRankIsRefusedAtItsLine) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel("unpacks_two", [](Array out, Array a) {
    detail::require_rank(a, 2);
    parallel_for(out.size(), [&](Index i) { out[i] = a.shape(0) * a.shape(1); });
  });
  auto dev = tack::device("interp");
  auto out = dev.zeros(tack::DType::I64, {1});
  EXPECT_TACK_ERROR(k(out, dev.zeros(tack::DType::F32, {2, 3, 4})), tack::InvalidArgument, "kernel 'unpacks_two'",
                    "array_ranks.cpp:" + std::to_string(line),
                    "argument 1 has rank 3 here, but this line needs rank 2: it unpacks the shape into 2 names");
  // A rank-1 array would be refused too, not read beyond its shape.
  EXPECT_TACK_ERROR(k(out, dev.zeros(tack::DType::F32, {6})), tack::InvalidArgument, "argument 1 has rank 1 here");
  k(out, dev.zeros(tack::DType::F32, {2, 3}));
  EXPECT_EQ(out.to_host<std::int64_t>()[0], 6);
}

TEST(ArrayRanks, TwoDifferentRequiredRanksAreRefusedAtTrace) {
  const int first = __LINE__ + 2;
  auto k = tack::kernel("unpacks_twice", [](Array out, Array a) {
    detail::require_rank(a, 2);
    detail::require_rank(a, 3);
    parallel_for(out.size(), [&](Index i) { out[i] = 0; });
  });
  EXPECT_TACK_ERROR(
      k(tack::device("interp").zeros(tack::DType::F32, {2}), tack::device("interp").zeros(tack::DType::F32, {2})),
      tack::InvalidArgument, "argument 1 is taken to have rank 3 here, but rank 2 at",
      "array_ranks.cpp:" + std::to_string(first));
}

TEST(ArrayRanks, ARequiredRankIsPartOfTheKernelsHash) {
  auto plain = tack::kernel("k", [](Array out, Array a) { parallel_for(out.size(), [&](Index i) { out[i] = 0; }); });
  auto ranked = tack::kernel("k", [](Array out, Array a) {
    detail::require_rank(a, 2);
    parallel_for(out.size(), [&](Index i) { out[i] = 0; });
  });
  const tack::ArraySpec f32_2d{tack::DType::F32, 2};
  std::string plain_ir = tack::inspect(plain, "interp", f32_2d, f32_2d).ir;
  std::string ranked_ir = tack::inspect(ranked, "interp", f32_2d, f32_2d).ir;
  EXPECT_NE(plain_ir, ranked_ir);
  EXPECT_NE(ranked_ir.find("%1: Array<rank 2>"), std::string::npos) << ranked_ir;
}

}  // namespace
