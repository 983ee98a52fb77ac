// Bool arrays: one byte an element, as NumPy's. A load gives a bool (a condition
// for if_ and select, an operand of && and ||, 0 or 1 beside a number); any
// nonzero byte reads as true, so bytes 2 and 255 written by the host are true.
// A store converts as Python's bool() does (x != 0: NaN is true, -0.0 false)
// and writes exactly 0 or 1. 2-D masks, workgroup shared bool arrays, and a
// bool array beside a u8 array in one kernel; the same kernel called with a u8
// array is another variant, storing numbers rather than truth values. A bool
// scalar (accepted since bool is an array dtype) is a condition too.
#include "conformance/backend_param.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(BoolArrays);

using Bytes = std::vector<std::uint8_t>;

// A bool array holding exactly these bytes (2 and 255 included), as a host writes them through a u8 view.
tack::Array bool_array(const tack::Device& d, const Bytes& bytes, std::vector<std::int64_t> shape = {}) {
  // Only copied, never read as bool, so bytes other than 0 and 1 are no undefined behaviour here.
  std::span<const bool> raw(reinterpret_cast<const bool*>(bytes.data()), bytes.size());
  return d.from_host(raw, std::move(shape));
}

tack::Array bool_zeros(const tack::Device& d, std::int64_t n) { return d.zeros(tack::DType::Bool, {n}); }

TEST_P(BoolArrays, LoadsAreConditionsAndNonzeroBytesAreTrue) {
  auto k = tack::kernel("bool_mask_condition", [](Array out, Array mask, Array x) {
    parallel_for(out.size(), [&](Index i) {
      Var v = x[i];
      if_(mask[i], [&] { v = v + 1000; });
      out[i] = v + select(mask[i], 10, 20) + select(mask[i] && x[i] > 2, 100, 0) + select(!mask[i] || x[i] == 1, 1, 0);
    });
  });
  const Bytes mask = {0, 1, 2, 255, 0, 1, 128};
  const std::vector<std::int32_t> x = {1, 1, 3, 3, 5, 5, 0};
  expect_exact(
      "if_(mask[i]), select(mask[i], ...), && and || on mask bytes 0, 1, 2, 255, 0, 1, 128",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 7);
        k(out, bool_array(d, mask), d.from_host(x));
        return out.to_host<std::int32_t>();
      },
      std::vector<std::int32_t>{1 + 20 + 1, 1001 + 10 + 1, 1003 + 10 + 100, 1003 + 10 + 100, 5 + 20 + 1,
                                1005 + 10 + 100, 1000 + 10});
}

TEST_P(BoolArrays, StoresOfComparisonsAreZeroOrOne) {
  auto k = tack::kernel("bool_store_compare",
                        [](Array out, Array x) { parallel_for(out.size(), [&](Index i) { out[i] = x[i] > 0.5f; }); });
  const std::vector<float> x = {0.0f, 0.5f, 0.75f, -3.0f, 2.0f, std::numeric_limits<float>::quiet_NaN()};
  expect_exact(
      "mask[i] = x[i] > 0.5",
      [&](const tack::Device& d) {
        tack::Array out = bool_zeros(d, 6);
        k(out, d.from_host(x));
        return out.to_host<std::uint8_t>();
      },
      Bytes{0, 0, 1, 0, 1, 0}, rows_of(x));
}

TEST_P(BoolArrays, StoresOfNumbersConvertAsPythonBool) {
  auto k = tack::kernel("bool_store_number",
                        [](Array out, Array x) { parallel_for(out.size(), [&](Index i) { out[i] = x[i]; }); });
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  if (has_dtype<double>()) {
    const std::vector<double> x = {0.0, -0.0, 2.0, nan, 0.5, -1.0, inf, 1e-300};
    expect_exact(
        "mask[i] = f64 x[i]",
        [&](const tack::Device& d) {
          tack::Array out = bool_zeros(d, 8);
          k(out, d.from_host(x));
          return out.to_host<std::uint8_t>();
        },
        Bytes{0, 0, 1, 1, 1, 1, 1, 1}, rows_of(x));
  }
  const std::vector<float> f = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 1e-45f};
  expect_exact(
      "mask[i] = f32 x[i]",
      [&](const tack::Device& d) {
        tack::Array out = bool_zeros(d, 4);
        k(out, d.from_host(f));
        return out.to_host<std::uint8_t>();
      },
      Bytes{0, 0, 1, 1}, rows_of(f));
  // 256 and -256 are true: the value is compared with 0, not truncated to a byte.
  const std::vector<std::int32_t> n = {0, 1, 2, 256, -256, -1};
  expect_exact(
      "mask[i] = i32 x[i]",
      [&](const tack::Device& d) {
        tack::Array out = bool_zeros(d, 6);
        k(out, d.from_host(n));
        return out.to_host<std::uint8_t>();
      },
      Bytes{0, 1, 1, 1, 1, 1}, rows_of(n));
  // A bool array copied: host bytes 2 and 255 are stored back as 1.
  expect_exact(
      "mask[i] = bool mask[i] (bytes 0, 1, 2, 255)",
      [&](const tack::Device& d) {
        tack::Array out = bool_zeros(d, 4);
        k(out, bool_array(d, {0, 1, 2, 255}));
        return out.to_host<std::uint8_t>();
      },
      Bytes{0, 1, 1, 1});
}

TEST_P(BoolArrays, LiteralsStoredConvert) {
  auto k = tack::kernel("bool_store_literals", [](Array out) {
    parallel_for(1, [&](Index) {
      out[0] = 2;
      out[1] = 0;
      out[2] = -0.0;
      out[3] = 0.25;
      out[4] = true;
    });
  });
  expect_exact(
      "mask[0..4] = 2, 0, -0.0, 0.25, true",
      [&](const tack::Device& d) {
        tack::Array out = bool_array(d, {7, 7, 7, 7, 7});
        k(out);
        return out.to_host<std::uint8_t>();
      },
      Bytes{1, 0, 0, 1, 1});
}

TEST_P(BoolArrays, MixedWithNumbersTheyAreZeroOrOne) {
  // bool with a number takes the number's dtype (semantics.md §3.1): the mask counts as 0 or 1.
  auto k = tack::kernel("bool_mixed", [](Array out, Array count, Array mask, Array x, Array flags) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = mask[i] * x[i];
      count[i] = mask[i] + flags[i] + cast<std::int32_t>(mask[i]);
    });
  });
  const Bytes mask = {0, 1, 2, 255};
  const std::vector<float> x = {1.5f, 2.5f, -3.0f, 4.0f};
  const Bytes flags = {7, 7, 250, 0};  // a u8 array beside the bool one: its bytes are numbers
  expect_exact(
      "out[i] = mask[i] * x[i]; count[i] = mask[i] + u8 flags[i] + i32(mask[i])",
      [&](const tack::Device& d) {
        tack::Array out = zeros<float>(d, 4);
        tack::Array count = zeros<std::int32_t>(d, 4);
        k(out, count, bool_array(d, mask), d.from_host(x), d.from_host(flags));
        std::vector<float> r = out.to_host<float>();
        for (std::int32_t c : count.to_host<std::int32_t>()) r.push_back(static_cast<float>(c));
        return r;
      },
      std::vector<float>{0.0f, 2.5f, -3.0f, 4.0f, 7, 9, 252, 2});
}

TEST_P(BoolArrays, TwoDimensionalMasks) {
  auto k = tack::kernel("bool_mask_2d", [](Array out, Array mask, Array x) {
    parallel_for({x.shape(0), x.shape(1)}, [&](Index i, Index j) {
      out(i, j) = mask(i, j) && x(i, j) > 0;
      x(i, j) = select(mask(i, j), x(i, j), 0);
    });
  });
  const Bytes mask = {1, 0, 2, 0, 1, 255};
  const std::vector<std::int32_t> x = {5, 6, -7, 8, 0, 9};
  expect_exact(
      "2x3: out(i, j) = mask(i, j) && x(i, j) > 0; x(i, j) = select(mask(i, j), x(i, j), 0)",
      [&](const tack::Device& d) {
        tack::Array out = d.zeros(tack::DType::Bool, {2, 3});
        tack::Array xs = d.from_host(x, {2, 3});
        k(out, bool_array(d, mask, {2, 3}), xs);
        std::vector<std::int32_t> r;
        for (std::uint8_t b : out.to_host<std::uint8_t>()) r.push_back(b);
        for (std::int32_t v : xs.to_host<std::int32_t>()) r.push_back(v);
        return r;
      },
      std::vector<std::int32_t>{1, 0, 0, 0, 0, 1, 5, 0, -7, 0, 0, 9});
}

TEST_P(BoolArrays, AU8ArrayIsAnotherVariant) {
  // One kernel: with a bool output the store is bool(x); with a u8 output it is the number, wrapped.
  auto k = tack::kernel("bool_or_u8_store",
                        [](Array out, Array x) { parallel_for(out.size(), [&](Index i) { out[i] = x[i]; }); });
  const std::vector<std::int32_t> x = {0, 2, 300};
  expect_exact(
      "the same kernel, a bool output then a u8 output",
      [&](const tack::Device& d) {
        tack::Array as_bool = bool_zeros(d, 3);
        tack::Array as_u8 = zeros<std::uint8_t>(d, 3);
        k(as_bool, d.from_host(x));
        k(as_u8, d.from_host(x));
        Bytes r = as_bool.to_host<std::uint8_t>();
        for (std::uint8_t b : as_u8.to_host<std::uint8_t>()) r.push_back(b);
        return r;
      },
      Bytes{0, 1, 1, 0, 2, 44});
}

TEST_P(BoolArrays, SharedBoolArraysInAWorkgroup) {
  auto k = tack::kernel("bool_shared_flags", [](Array out, Array x) {
    workgroup_for(x.size() / 256, [&](Group g) {  // groups of 256 work-items
      SharedArray seen = g.shared<bool>(256);
      Value lid = g.local_id(), gid = g.global_id();
      Value was = seen[lid];  // zeroed: false
      g.barrier();
      seen[lid] = x[gid] % 3;  // a number: stored as bool() stores it
      g.barrier();
      out[gid] = select(seen[255 - lid], 1, 0) + select(was, 10, 0);
    });
  });
  if (!caps().supports_workgroups) GTEST_SKIP() << backend() << " has no workgroups";
  std::vector<std::int32_t> x, want(512);
  for (std::int32_t i = 0; i < 512; ++i) x.push_back(i * 5);
  for (std::int32_t i = 0; i < 512; ++i) want[i] = x[(i / 256) * 256 + 255 - i % 256] % 3 != 0 ? 1 : 0;
  expect_exact(
      "shared bool flags, read reversed after a barrier",
      [&](const tack::Device& d) { return run_unary<std::int32_t>(k, d, x); }, want);
}

// Bool being an array dtype, a bool scalar is accepted too: a strong bool, a condition like a mask's load.
TEST_P(BoolArrays, ABoolScalarIsACondition) {
  auto k = tack::kernel("bool_scalar_and_mask", [](Array out, Array mask, Scalar flag) {
    parallel_for(out.size(), [&](Index i) { out[i] = select(mask[i] && flag, 1, 0) + select(flag, 10, 0); });
  });
  expect_exact(
      "select(mask[i] && flag, 1, 0) + select(flag, 10, 0), flag true then false",
      [&](const tack::Device& d) {
        tack::Array mask = bool_array(d, {0, 1, 2});
        tack::Array out = zeros<std::int32_t>(d, 3);
        k(out, mask, true);
        std::vector<std::int32_t> r = out.to_host<std::int32_t>();
        k(out, mask, false);
        for (std::int32_t v : out.to_host<std::int32_t>()) r.push_back(v);
        return r;
      },
      std::vector<std::int32_t>{10, 11, 11, 0, 0, 0});
}

TEST_P(BoolArrays, HostReductionsCountTrueElements) {
  // Bytes 2 and 255 are true: sum counts them (NumPy's count), min is "all", max is "any".
  tack::Array a = bool_array(dev(), {0, 1, 2, 255, 0});
  EXPECT_EQ(a.sum<std::int64_t>(), 3);
  EXPECT_FALSE(a.min<bool>());
  EXPECT_TRUE(a.max<bool>());
  tack::Array all = bool_array(dev(), {3, 1, 255});
  EXPECT_TRUE(all.min<bool>());
  EXPECT_EQ(all.sum<double>(), 3.0);
  tack::Array none = bool_zeros(dev(), 70000);  // more than one block of the host reduction
  EXPECT_FALSE(none.max<bool>());
  none.fill(2.5);  // converted as bool(2.5): every byte 1
  EXPECT_EQ(none.sum<std::int64_t>(), 70000);
  EXPECT_EQ(none.read_range<std::uint8_t>(69998, 2), (Bytes{1, 1}));
}

}  // namespace
