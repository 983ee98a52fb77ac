// The host's Array::sum/min/max loops (src/runtime/reductions/host_reduce_loops.hpp), in
// each copy (baseline, AVX2, AVX-512; a copy the host cannot run is SKIPPED,
// naming it): the f64 sum adds in 16
// fixed lanes, bit for bit at every vector width; min/max find the extreme
// wherever it sits (every lane and the tail), skip every NaN, tell infinity
// from all-NaN, keep the first of two equal zeros; and the whole reduction
// gives the same bits on one thread and on two.
#include "runtime/reductions/host_reduce_loops.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using tack::runtime::Extreme;
using tack::runtime::ReduceLoops;

// Every copy of the loops this host runs, by vector bytes; the baseline's always.
std::vector<std::pair<int, const ReduceLoops*>> copies() {
  std::vector<std::pair<int, const ReduceLoops*>> out;
  for (int bytes : {16, 32, 64})
    if (const ReduceLoops* loops = tack::runtime::reduce_loops(bytes)) out.emplace_back(bytes, loops);
  return out;
}

// One copy per test instance: the parameter is its vector bytes.
class HostReduceLoops : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    loops_ = tack::runtime::reduce_loops(GetParam());
    if (!loops_)
      GTEST_SKIP() << "this host cannot run the " << GetParam() << "-byte copy ("
                   << (GetParam() == 64 ? "no AVX-512" : "no AVX2") << ")";
  }
  // Runs check(loops, F{}) for F = float and for F = double.
  template <class Check>
  void in_both_types(Check check) {
    check(*loops_, float{});
    check(*loops_, double{});
  }
  const ReduceLoops* loops_ = nullptr;
};
INSTANTIATE_TEST_SUITE_P(Copies, HostReduceLoops, ::testing::Values(16, 32, 64),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "_bytes";
                         });

double sum_as_f64(const ReduceLoops& l, const float* x, std::int64_t n) { return l.sum_f32(x, n); }
double sum_as_f64(const ReduceLoops& l, const double* x, std::int64_t n) { return l.sum_f64(x, n); }
Extreme min_of(const ReduceLoops& l, const float* x, std::int64_t n) { return l.min_f32(x, n); }
Extreme min_of(const ReduceLoops& l, const double* x, std::int64_t n) { return l.min_f64(x, n); }
Extreme max_of(const ReduceLoops& l, const float* x, std::int64_t n) { return l.max_f32(x, n); }
Extreme max_of(const ReduceLoops& l, const double* x, std::int64_t n) { return l.max_f64(x, n); }

template <class F>
std::vector<F> random_values(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(-1e3, 1e3);
  std::vector<F> v(n);
  for (F& x : v) x = static_cast<F>(d(g));
  return v;
}

// What sum_as_f64 promises: element i to lane i % 16, then the lanes in order.
template <class F>
double sixteen_lane_sum(const std::vector<F>& x) {
  double lanes[16] = {};
  for (std::size_t i = 0; i < x.size(); ++i) lanes[i % 16] += static_cast<double>(x[i]);
  double total = 0;
  for (double l : lanes) total += l;
  return total;
}

template <class F>
void expect_sums_in_sixteen_lanes(const ReduceLoops& loops) {
  for (std::size_t n : {0, 1, 2, 15, 16, 17, 31, 33, 100, 65535, 65536, 65537}) {
    const std::vector<F> x = random_values<F>(n, static_cast<unsigned>(n));
    const double got = sum_as_f64(loops, x.data(), static_cast<std::int64_t>(n));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(sixteen_lane_sum(x))) << n;
  }
}

TEST_P(HostReduceLoops, SumsAddInSixteenFixedLanes) {
  in_both_types([](const ReduceLoops& loops, auto f) { expect_sums_in_sixteen_lanes<decltype(f)>(loops); });
}

template <class F>
void expect_extremes_found_at_every_position(const ReduceLoops& loops) {
  for (std::int64_t n : {1, 2, 7, 8, 9, 16, 17, 31, 32, 33, 70}) {
    for (std::int64_t at = 0; at < n; ++at) {
      std::vector<F> x(static_cast<std::size_t>(n), F(1.5));
      x[static_cast<std::size_t>(at)] = F(-2.25);
      const auto lo = min_of(loops, x.data(), n);
      EXPECT_TRUE(lo.any);
      EXPECT_EQ(lo.value, -2.25) << n << " " << at;
      x[static_cast<std::size_t>(at)] = F(7.75);
      const auto hi = max_of(loops, x.data(), n);
      EXPECT_EQ(hi.value, 7.75) << n << " " << at;
    }
  }
}

TEST_P(HostReduceLoops, ExtremesFoundInEveryLaneAndTheTail) {
  in_both_types([](const ReduceLoops& loops, auto f) { expect_extremes_found_at_every_position<decltype(f)>(loops); });
}

template <class F>
void expect_nan_zero_and_infinity_rules(const ReduceLoops& loops) {
  const F nan = std::numeric_limits<F>::quiet_NaN(), inf = std::numeric_limits<F>::infinity();
  const F negative_nan = -nan;
  std::vector<F> x(40, nan);
  x[3] = negative_nan;
  x[39] = negative_nan;
  EXPECT_FALSE(min_of(loops, x.data(), 40).any) << "every element NaN";
  EXPECT_FALSE(max_of(loops, x.data(), 40).any);
  EXPECT_FALSE(min_of(loops, x.data(), 0).any) << "no element";
  x[20] = F(0.5);
  EXPECT_EQ(min_of(loops, x.data(), 40).value, 0.5) << "NaN of either sign is skipped";
  EXPECT_EQ(max_of(loops, x.data(), 40).value, 0.5);
  x[21] = -inf;
  x[22] = inf;
  EXPECT_EQ(min_of(loops, x.data(), 40).value, -static_cast<double>(inf));
  EXPECT_EQ(max_of(loops, x.data(), 40).value, static_cast<double>(inf));
  const F denormal = std::numeric_limits<F>::denorm_min();
  for (const std::vector<F>& zeros : {std::vector<F>{F(0), F(-0.0)}, std::vector<F>{F(-0.0), F(0)}}) {
    std::vector<F> z = zeros;
    z.push_back(denormal);
    const auto lo = min_of(loops, z.data(), 3), hi = max_of(loops, z.data(), 3);
    EXPECT_EQ(lo.value, 0.0);
    EXPECT_EQ(std::signbit(lo.value), std::signbit(zeros[0])) << "the first of two equal zeros (lane 0) stays";
    EXPECT_EQ(hi.value, static_cast<double>(denormal));
    const auto hi_zero = max_of(loops, zeros.data(), 2);
    EXPECT_EQ(std::signbit(hi_zero.value), std::signbit(zeros[0]));
  }
  // Zeros in the vector loop: lane order decides, not element order. Element 3 (lane 3) holds one zero,
  // element lanes + 1 (lane 1, the next round) the other; lane 1's stays.
  const std::int64_t lanes = sizeof(F) == 4 ? 32 : 8;
  for (const bool later_is_negative : {true, false}) {
    std::vector<F> z(static_cast<std::size_t>(2 * lanes + 5), F(1));
    z[3] = later_is_negative ? F(0) : F(-0.0);
    z[static_cast<std::size_t>(lanes + 1)] = later_is_negative ? F(-0.0) : F(0);
    const auto lo = min_of(loops, z.data(), static_cast<std::int64_t>(z.size()));
    EXPECT_EQ(lo.value, 0.0);
    EXPECT_EQ(std::signbit(lo.value), later_is_negative) << "lane 1's zero, though lane 3's came first";
  }
  // The lanes start at +inf (-inf for max): an answer of infinity is checked against the elements.
  std::vector<F> inf_among_nan(40, nan);
  inf_among_nan[37] = inf;
  const auto lo_inf = min_of(loops, inf_among_nan.data(), 40);
  EXPECT_TRUE(lo_inf.any) << "+inf is a number";
  EXPECT_EQ(lo_inf.value, static_cast<double>(inf));
  EXPECT_FALSE(max_of(loops, inf_among_nan.data(), 37).any) << "only NaN before element 37";
  inf_among_nan[37] = -inf;
  EXPECT_EQ(max_of(loops, inf_among_nan.data(), 40).value, -static_cast<double>(inf));
  std::vector<F> negatives = {F(-1), F(-3), F(-2), -denormal};
  EXPECT_EQ(min_of(loops, negatives.data(), 4).value, -3.0);
  EXPECT_EQ(max_of(loops, negatives.data(), 4).value, -static_cast<double>(denormal));
}

TEST_P(HostReduceLoops, NaNZerosAndInfinities) {
  in_both_types([](const ReduceLoops& loops, auto f) { expect_nan_zero_and_infinity_rules<decltype(f)>(loops); });
}

// The functions Array::sum/min/max call run the widest copy; a width the host lacks has none.
TEST(HostReduceEntryPoints, RunTheWidestCopy) {
  const auto all = copies();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().first, 16) << "the baseline copy is always there";
  const ReduceLoops& widest = *all.back().second;
  const std::vector<float> f = random_values<float>(1000, 3);
  const std::vector<double> d = random_values<double>(1000, 4);
  EXPECT_EQ(tack::runtime::sum_as_f64(f.data(), 1000), widest.sum_f32(f.data(), 1000));
  EXPECT_EQ(tack::runtime::sum_as_f64(d.data(), 1000), widest.sum_f64(d.data(), 1000));
  EXPECT_EQ(tack::runtime::min_of(d.data(), 1000).value, widest.min_f64(d.data(), 1000).value);
  EXPECT_EQ(tack::runtime::max_of(f.data(), 1000).value, widest.max_f32(f.data(), 1000).value);
  EXPECT_EQ(tack::runtime::reduce_loops(8), nullptr);
  EXPECT_EQ(tack::runtime::reduce_loops(128), nullptr);
}

// Blocks are combined in one order whatever the thread count, the earlier block's zero staying.
TEST(HostReduce, SameBitsOnOneThreadAndOnTwo) {
  const std::vector<float> x = random_values<float>((std::size_t{1} << 20) + 3, 7);
  tack::Device one = tack::device("cpu", {{"num_threads", std::int64_t{1}}});
  tack::Device two = tack::device("cpu", {{"num_threads", std::int64_t{2}}});
  tack::Array a = one.from_host(x), b = two.from_host(x);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.sum<double>()), std::bit_cast<std::uint64_t>(b.sum<double>()));
  EXPECT_EQ(a.min<float>(), b.min<float>());
  EXPECT_EQ(a.max<float>(), b.max<float>());

  std::vector<float> zeros((std::size_t{1} << 18), 1.0f);
  zeros[200000] = -0.0f;  // a later block than the +0.0 below
  zeros[100] = 0.0f;
  for (const tack::Device& d : {one, two}) {
    const float lowest = d.from_host(zeros).min<float>();
    EXPECT_EQ(lowest, 0.0f);
    EXPECT_FALSE(std::signbit(lowest)) << "the earlier block's zero";
  }
}

}  // namespace
