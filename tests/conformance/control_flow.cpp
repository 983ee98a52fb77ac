// Control flow: if_ with and without else, for_range (empty ranges, nested),
// while_ with break_ and continue_ (a condition evaluated afresh before every
// iteration), break_ leaving only the innermost loop, select, && and ||, C++
// loops unrolled at trace time and helper functions inlined. Every result is
// compared with the same algorithm in plain C++.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(ControlFlow);

std::vector<std::int32_t> small_ints() { return {-7, -1, 0, 1, 2, 3, 5, 9, 10, 27, 64, 100}; }

template <class O>
std::vector<O> run_i32(const tack::Kernel& k, const tack::Device& d, const std::vector<std::int32_t>& a) {
  return run_unary<O>(k, d, a);
}

TEST_P(ControlFlow, IfElseAndNestedIf) {
  auto k = tack::kernel("if_else", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var v = 0;
      if_(
          a[i] > 0, [&] { v = 1; }, [&] { v = -1; });
      if_(a[i] == 0, [&] { v = 100; });
      if_(a[i] > 2, [&] {
        if_(
            a[i] % 2 == 0, [&] { v += 10; }, [&] { if_(a[i] > 20, [&] { v += 1000; }); });
      });
      if_((a[i] > -5) && (a[i] < 3), [&] { v += 20000; });
      if_((a[i] < -5) || (a[i] == 64), [&] { v += 300000; });
      out[i] = v;
    });
  });
  std::vector<std::int32_t> a = small_ints(), want;
  for (std::int32_t x : a) {
    std::int32_t v = x > 0 ? 1 : -1;
    if (x == 0) v = 100;
    if (x > 2) {
      if (x % 2 == 0)
        v += 10;
      else if (x > 20)
        v += 1000;
    }
    if (x > -5 && x < 3) v += 20000;
    if (x < -5 || x == 64) v += 300000;
    want.push_back(v);
  }
  expect_exact(
      "nested if_ / else", [&](const tack::Device& d) { return run_i32<std::int32_t>(k, d, a); }, want, rows_of(a));
}

TEST_P(ControlFlow, ForRangeSumsAndEmptyRanges) {
  auto k = tack::kernel("for_range_sum", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var s = 0;
      for_range(0, a[i], [&](Index j) { s += j; });  // empty when a[i] <= 0
      for_range(a[i], 3, [&](Index j) { s += 1000 * j; });
      Var pairs = 0;
      for_range(0, a[i], [&](Index j) { for_range(j + 1, a[i], [&](Index) { pairs += 1; }); });
      out[i] = s + 1000000 * pairs;
    });
  });
  std::vector<std::int32_t> a = {-7, -1, 0, 1, 2, 3, 5, 9, 10, 27, 64};
  std::vector<std::int64_t> want;
  for (std::int64_t x : a) {
    std::int64_t s = 0, pairs = 0;
    for (std::int64_t j = 0; j < x; ++j) s += j;
    for (std::int64_t j = x; j < 3; ++j) s += 1000 * j;
    for (std::int64_t j = 0; j < x; ++j)
      for (std::int64_t m = j + 1; m < x; ++m) pairs += 1;
    want.push_back(s + 1000000 * pairs);
  }
  expect_exact(
      "for_range sums, nested and empty", [&](const tack::Device& d) { return run_i32<std::int64_t>(k, d, a); }, want,
      rows_of(a));
}

TEST_P(ControlFlow, WhileCollatz) {
  auto k = tack::kernel("collatz", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var x = a[i];
      Var steps = 0;
      while_([&] { return x != 1; },
             [&] {
               if_(
                   x % 2 == 0, [&] { x = x / 2; }, [&] { x = 3 * x + 1; });
               steps += 1;
             });
      out[i] = steps;
    });
  });
  std::vector<std::int64_t> a;
  for (std::int64_t v = 1; v <= 40; ++v) a.push_back(v);
  a.push_back(97);
  std::vector<std::int32_t> want;
  for (std::int64_t x : a) {
    std::int32_t steps = 0;
    while (x != 1) {
      x = x % 2 == 0 ? x / 2 : 3 * x + 1;
      ++steps;
    }
    want.push_back(steps);
  }
  EXPECT_EQ(want[26], 111);  // 27 takes 111 steps
  expect_exact(
      "collatz steps (while_ with if_ / else)", [&](const tack::Device& d) { return run_unary<std::int32_t>(k, d, a); },
      want, rows_of(a));
}

TEST_P(ControlFlow, WhileWithBreakAndContinue) {
  auto k = tack::kernel("while_break_continue", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      // continue_: the sum of 1..a not divisible by 3.
      Var j = 0;
      Var sum = 0;
      while_([&] { return j < a[i]; },
             [&] {
               j += 1;
               if_(j % 3 == 0, [&] { continue_(); });
               sum += j;
             });
      // break_ out of an endless loop: the smallest k with k * k >= a.
      Var r = 0;
      while_([&] { return Value(true); },
             [&] {
               if_(r * r >= a[i], [&] { break_(); });
               r += 1;
             });
      // A condition false at once: the body never runs.
      Var never = 0;
      while_([&] { return a[i] < -1000; }, [&] { never += 1; });
      out[3 * i] = sum;
      out[3 * i + 1] = r;
      out[3 * i + 2] = never;
    });
  });
  std::vector<std::int32_t> a = small_ints(), want;
  for (std::int32_t x : a) {
    std::int32_t j = 0, sum = 0;
    while (j < x) {
      j += 1;
      if (j % 3 == 0) continue;
      sum += j;
    }
    std::int32_t r = 0;
    while (true) {
      if (r * r >= x) break;
      r += 1;
    }
    want.insert(want.end(), {sum, r, 0});
  }
  expect_exact(
      "while_ with continue_, while_(true) with break_",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 3 * static_cast<std::int64_t>(a.size()));
        k(out, d.from_host(a));
        return out.to_host<std::int32_t>();
      },
      want, [a](std::size_t i) { return "a = " + std::to_string(a[i / 3]) + ", output " + std::to_string(i % 3); });
}

// break_ and continue_ in for_range, and a break_ that leaves only the inner loop.
TEST_P(ControlFlow, BreakLeavesOnlyTheInnermostLoop) {
  auto k = tack::kernel("nested_break", [](Array out, Array a, Array data) {
    parallel_for(a.size(), [&](Index i) {
      // The first j with data[j] > a[i], or -1.
      Var found = -1;
      for_range(0, data.size(), [&](Index j) {
        if_(data[j] > a[i], [&] {
          found = j;
          break_();
        });
      });
      // 0..9 without a[i].
      Var skipped = 0;
      for_range(0, 10, [&](Index j) {
        if_(j == a[i], [&] { continue_(); });
        skipped += j;
      });
      // An outer loop of 5 whose inner while_ stops at r + a[i] (at most 50).
      Var total = 0;
      for_range(0, 5, [&](Index r) {
        Var c = 0;
        while_([&] { return c < 50; },
               [&] {
                 if_(c >= r + a[i], [&] { break_(); });
                 c += 1;
               });
        total += c;
      });
      out[3 * i] = found;
      out[3 * i + 1] = skipped;
      out[3 * i + 2] = total;
    });
  });
  std::vector<std::int32_t> a = small_ints();
  std::vector<std::int32_t> data = {3, -2, 8, 1, 15, 9, 70, 0, 30};
  std::vector<std::int64_t> want;
  for (std::int64_t x : a) {
    std::int64_t found = -1;
    for (std::size_t j = 0; j < data.size(); ++j)
      if (data[j] > x) {
        found = static_cast<std::int64_t>(j);
        break;
      }
    std::int64_t skipped = 0;
    for (std::int64_t j = 0; j < 10; ++j) {
      if (j == x) continue;
      skipped += j;
    }
    std::int64_t total = 0;
    for (std::int64_t r = 0; r < 5; ++r) {
      std::int64_t c = 0;
      while (c < 50) {
        if (c >= r + x) break;
        c += 1;
      }
      total += c;
    }
    want.insert(want.end(), {found, skipped, total});
  }
  expect_exact(
      "break_ / continue_ in for_range; break_ from an inner while_",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int64_t>(d, 3 * static_cast<std::int64_t>(a.size()));
        k(out, d.from_host(a), d.from_host(data));
        return out.to_host<std::int64_t>();
      },
      want, [a](std::size_t i) { return "a = " + std::to_string(a[i / 3]) + ", output " + std::to_string(i % 3); });
}

// Plain C++ loops over ints unroll at trace time; C++ helpers taking and
// returning Value are inlined; select evaluates a choice.
Value poly(const Value& x) { return x * x - 3 * x + 2; }

TEST_P(ControlFlow, TraceTimeLoopsHelpersAndSelect) {
  auto k = tack::kernel("unrolled", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      Value acc = a[i];
      for (int m = 1; m <= 4; ++m) acc = acc * 2 + m;  // rebinding a Value builds a bigger expression
      out[3 * i] = acc;
      out[3 * i + 1] = poly(a[i]);
      out[3 * i + 2] = select(a[i] > 0, a[i], -a[i]) + select(a[i] == 5, 1000, 0);
    });
  });
  std::vector<std::int32_t> a = small_ints(), want;
  for (std::int32_t x : a) {
    std::int32_t acc = x;
    for (int m = 1; m <= 4; ++m) acc = acc * 2 + m;
    want.insert(want.end(), {acc, x * x - 3 * x + 2, (x > 0 ? x : -x) + (x == 5 ? 1000 : 0)});
  }
  expect_exact(
      "C++ for unrolled, helper inlined, select",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 3 * static_cast<std::int64_t>(a.size()));
        k(out, d.from_host(a));
        return out.to_host<std::int32_t>();
      },
      want, [a](std::size_t i) { return "a = " + std::to_string(a[i / 3]) + ", output " + std::to_string(i % 3); });
}

// A Value read from a Var is the Var's value at that point, as in C++.
TEST_P(ControlFlow, ValueOfAVarIsTakenWhenRead) {
  auto k = tack::kernel("var_snapshot", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      Var v = a[i];
      Value before = v;
      v = v * 10;
      Value after = v;
      v = 0;
      out[2 * i] = before;
      out[2 * i + 1] = after;
    });
  });
  std::vector<std::int32_t> a = {3, -4}, want = {3, 30, -4, -40};
  expect_exact(
      "Value before = v; v = v * 10; Value after = v",
      [&](const tack::Device& d) {
        tack::Array out = zeros<std::int32_t>(d, 4);
        k(out, d.from_host(a));
        return out.to_host<std::int32_t>();
      },
      want);
}

}  // namespace
