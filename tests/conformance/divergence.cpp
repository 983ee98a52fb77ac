// Divergent work-items: the cases the CPU's SIMD gangs (docs/cpu-codegen.md)
// must get right, run on every backend against results computed in plain C++.
// Sizes from 1 to past two gangs of the widest width (2 * 16 + 1) and odd sizes
// exercise partial gangs; loops whose lanes leave at every iteration count,
// nested loops with break_ and continue_, masked-off lanes whose index would be
// out of range, atomics with every lane on one element and on distinct ones,
// N-D launches whose rows end inside a gang, and Vars that a lane must keep
// while the others go on. ctest runs the cpu rows again with TACK_CPU_SIMD=0
// (conformance.cpu_scalar_path), so both CPU paths answer the same.
#include "conformance/backend_param.hpp"
#include "support/guarded_memory.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Divergence);

// Every size from 1 to 33, and a few odd larger ones.
std::vector<std::int64_t> sizes() {
  std::vector<std::int64_t> s;
  for (std::int64_t n = 1; n <= 33; ++n) s.push_back(n);
  for (std::int64_t n : {47, 63, 65, 127, 255, 1001}) s.push_back(n);
  return s;
}

// A Collatz-like loop: lane i runs (i * 7) % 23 iterations, so in any gang the lanes leave at many
// different counts, and a lane's running value must survive the iterations it no longer runs.
TEST_P(Divergence, LanesLeaveALoopAtEveryIterationCount) {
  auto k = tack::kernel("leave_at_every_count", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      Var n = 0;
      Var acc = i;
      Var limit = (i * 7) % 23;
      while_([&] { return n < limit; },
             [&] {
               acc = acc * 3 + n;
               n += 1;
             });
      out[i] = acc + 1000 * n;
    });
  });
  for (std::int64_t size : sizes()) {
    std::vector<std::int64_t> want(static_cast<std::size_t>(size));
    for (std::int64_t i = 0; i < size; ++i) {
      std::int64_t n = 0, acc = i, limit = (i * 7) % 23;
      while (n < limit) acc = acc * 3 + n, n += 1;
      want[static_cast<std::size_t>(i)] = acc + 1000 * n;
    }
    tack::Array out = dev().zeros(tack::DType::I64, {size});
    k(out);
    EXPECT_EQ(out.to_host<std::int64_t>(), want) << "size " << size;
  }
}

// break_ and continue_ at several depths: the inner loop's break leaves only the inner loop, continue
// skips the rest of an iteration, and the outer loop's own break ends it per lane.
TEST_P(Divergence, NestedLoopsWithBreakAndContinue) {
  auto k = tack::kernel("nested_break_continue", [](Array out, Array a) {
    parallel_for(out.size(), [&](Index i) {
      Var total = 0;
      for_range(0, a[i] % 9, [&](Index r) {
        if_(r % 3 == 1, [&] { continue_(); });
        Var j = 0;
        while_([&] { return j < 40; },
               [&] {
                 j += 1;
                 if_((j + r) % 4 == 0, [&] { continue_(); });
                 if_(j * r > a[i], [&] { break_(); });
                 total += j;
               });
        if_(total > 3 * a[i], [&] { break_(); });
        total += 100;
      });
      out[i] = total;
    });
  });
  for (std::int64_t size : {1, 5, 16, 17, 33, 100}) {
    std::vector<std::int32_t> a(static_cast<std::size_t>(size));
    std::vector<std::int32_t> want(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<std::int32_t>((i * 37 + 11) % 61);
      std::int32_t total = 0;
      for (std::int32_t r = 0; r < a[i] % 9; ++r) {
        if (r % 3 == 1) continue;
        std::int32_t j = 0;
        while (j < 40) {
          j += 1;
          if ((j + r) % 4 == 0) continue;
          if (j * r > a[i]) break;
          total += j;
        }
        if (total > 3 * a[i]) break;
        total += 100;
      }
      want[i] = total;
    }
    tack::Array out = dev().zeros(tack::DType::I32, {size});
    k(out, dev().from_host(a));
    EXPECT_EQ(out.to_host<std::int32_t>(), want) << "size " << size;
  }
}

// Lanes that do not take a branch compute indices far out of range there; nothing may read or write
// through them (a gathering load, a contiguous load past the end, a store, an atomic). Where the
// device wraps host memory (cpu, interp) the arrays lie in GuardedMemory, flush against 12 MB of
// inaccessible guard on each side, where every stray index of the kernel lands (1e6 or 2e6 elements
// off, or just past the end), so a stray access ends the test with a message naming the array; on
// the other devices a stray access is the driver's fault report.
TEST_P(Divergence, MaskedOffLanesNeverTouchTheirOutOfRangeElements) {
  auto k = tack::kernel("masked_out_of_range", [](Array out, Array a, Array count) {
    parallel_for(out.size(), [&](Index i) {
      Var v = -1;
      if_(
          i % 3 == 0,
          [&] {
            Value far = i / 3 + (i % 3) * 1000000;  // in range only for the lanes that run here
            v = a[far];                             // a gather
            v += a[(i * 1000003) % a.size()];
            atomic_add(count, far, 1);
          },
          [&] {
            if_(i < a.size(), [&] { v = a[i] * 2; });  // contiguous, past the end for the lanes at i >= size
          });
      out[i] = v;
    });
  });
  for (std::int64_t size : {1, 2, 3, 7, 16, 17, 31, 48, 49}) {
    const std::int64_t m = (size + 2) / 3;
    std::vector<std::int32_t> a(static_cast<std::size_t>(m));
    for (std::int64_t j = 0; j < m; ++j) a[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(j * 5 + 1);
    std::vector<std::int32_t> want(static_cast<std::size_t>(size)), want_count(a.size(), 0);
    for (std::int64_t i = 0; i < size; ++i) {
      std::int32_t v = -1;
      if (i % 3 == 0) {
        v = a[static_cast<std::size_t>(i / 3)] + a[static_cast<std::size_t>((i * 1000003) % m)];
        want_count[static_cast<std::size_t>(i / 3)] += 1;
      } else if (i < m) {
        v = a[static_cast<std::size_t>(i)] * 2;
      }
      want[static_cast<std::size_t>(i)] = v;
    }
    std::vector<std::unique_ptr<tack_test::GuardedMemory>> guarded;
    // An array of `values`, in guarded memory where the device can wrap it.
    auto array = [&](const char* name, const std::vector<std::int32_t>& values) {
      if (!wraps_host_memory()) return dev().from_host(values);
      constexpr std::size_t kGuard = std::size_t{12} << 20;
      auto& memory = guarded.emplace_back(
          std::make_unique<tack_test::GuardedMemory>(name, values.size() * sizeof(std::int32_t), kGuard));
      std::memcpy(memory->data(), values.data(), memory->bytes());
      return tack::array_from_ptr(dev(), memory->data(), tack::DType::I32, {static_cast<std::int64_t>(values.size())});
    };
    tack::Array out = array("out", std::vector<std::int32_t>(static_cast<std::size_t>(size), 0));
    tack::Array count = array("count", std::vector<std::int32_t>(static_cast<std::size_t>(m), 0));
    k(out, array("a", a), count);
    EXPECT_EQ(out.to_host<std::int32_t>(), want) << "size " << size;
    EXPECT_EQ(count.to_host<std::int32_t>(), want_count) << "size " << size;
  }
}

// atomic_add from every lane to one element, and to distinct ones; the old values each lane gets are a
// permutation of the running sums, so their sum is fixed.
TEST_P(Divergence, AtomicsFromEveryLaneToOneElementAndToDistinctOnes) {
  auto k = tack::kernel("gang_atomics", [](Array one, Array each, Array olds) {
    parallel_for(olds.size(), [&](Index i) {
      Value old = atomic_add(one, 0, 1);
      olds[i] = old;
      atomic_add(each, i, i + 1);
      if_(i % 2 == 1, [&] { atomic_max(one, 1, i); });
    });
  });
  for (std::int64_t size : sizes()) {
    tack::Array one = dev().zeros(tack::DType::I64, {2});
    tack::Array each = dev().zeros(tack::DType::I64, {size});
    tack::Array olds = dev().zeros(tack::DType::I64, {size});
    k(one, each, olds);
    std::vector<std::int64_t> got_one = one.to_host<std::int64_t>();
    EXPECT_EQ(got_one[0], size) << "size " << size;
    EXPECT_EQ(got_one[1], size >= 2 ? (size % 2 == 0 ? size - 1 : size - 2) : 0) << "size " << size;
    std::vector<std::int64_t> want_each(static_cast<std::size_t>(size));
    for (std::int64_t i = 0; i < size; ++i) want_each[static_cast<std::size_t>(i)] = i + 1;
    EXPECT_EQ(each.to_host<std::int64_t>(), want_each) << "size " << size;
    std::vector<std::int64_t> got = olds.to_host<std::int64_t>();
    std::sort(got.begin(), got.end());
    std::vector<std::int64_t> perm(static_cast<std::size_t>(size));
    for (std::int64_t i = 0; i < size; ++i) perm[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(got, perm) << "size " << size;
  }
}

// A 2-D launch whose rows (of 1 to 21 elements) end inside a gang; each element runs a loop of its own
// length and stores through a(i, j) (contiguous) and a transposed index (a scatter).
TEST_P(Divergence, TwoDimensionalRowsEndInsideAGang) {
  auto k = tack::kernel("rows_in_gangs", [](Array out, Array t) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index i, Index j) {
      Var s = 0;
      for_range(0, (i + 2 * j) % 5, [&](Index r) { s += r + 1; });
      out(i, j) = s * 100 + i * 10 + j;
      t(j, i) = s;
    });
  });
  for (std::int64_t w : {1, 3, 7, 15, 16, 17, 21}) {
    const std::int64_t h = 5;
    std::vector<std::int32_t> want(static_cast<std::size_t>(h * w)), want_t(static_cast<std::size_t>(h * w));
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) {
        std::int32_t s = 0;
        for (std::int64_t r = 0; r < (i + 2 * j) % 5; ++r) s += static_cast<std::int32_t>(r + 1);
        want[static_cast<std::size_t>(i * w + j)] = static_cast<std::int32_t>(s * 100 + i * 10 + j);
        want_t[static_cast<std::size_t>(j * h + i)] = s;
      }
    tack::Array out = dev().zeros(tack::DType::I32, {h, w});
    tack::Array t = dev().zeros(tack::DType::I32, {w, h});
    k(out, t);
    EXPECT_EQ(out.to_host<std::int32_t>(), want) << "width " << w;
    EXPECT_EQ(t.to_host<std::int32_t>(), want_t) << "width " << w;
  }
}

// A Var assigned only in some lanes keeps its value in the others, through an if_, a loop the lane has
// left, and a continue_ that parks a lane for the rest of an iteration; Vars read only inside a loop, and
// uniform values (a loop over a uniform bound, a load at a uniform index) mixed into varying ones.
TEST_P(Divergence, VarsKeepTheirValuesInLanesThatDoNotRun) {
  auto k = tack::kernel("kept_values", [](Array out, Array a, Scalar n) {
    parallel_for(out.size(), [&](Index i) {
      Var kept = i;
      Var last = 0;
      if_(a[i] % 2 == 0, [&] { kept = kept * 10; });
      for_range(0, 6, [&](Index r) {
        Var local = r * a[i];  // read only inside this loop
        if_(r == a[i] % 4, [&] { continue_(); });
        if_(local > 20, [&] { break_(); });
        last = local;
      });
      Var uniform_sum = 0;
      for_range(0, n, [&](Index r) { uniform_sum += a[r]; });
      out[i] = kept * 1000000 + last * 1000 + uniform_sum;
    });
  });
  for (std::int64_t size : {1, 2, 9, 16, 17, 40}) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(size));
    for (std::int64_t i = 0; i < size; ++i) a[static_cast<std::size_t>(i)] = (i * 13 + 5) % 11;
    const std::int64_t n = size < 4 ? size : 4;
    std::int64_t uniform_sum = 0;
    for (std::int64_t r = 0; r < n; ++r) uniform_sum += a[static_cast<std::size_t>(r)];
    std::vector<std::int64_t> want(a.size());
    for (std::int64_t i = 0; i < size; ++i) {
      const std::int64_t ai = a[static_cast<std::size_t>(i)];
      std::int64_t kept = i, last = 0;
      if (ai % 2 == 0) kept *= 10;
      for (std::int64_t r = 0; r < 6; ++r) {
        std::int64_t local = r * ai;
        if (r == ai % 4) continue;
        if (local > 20) break;
        last = local;
      }
      want[static_cast<std::size_t>(i)] = kept * 1000000 + last * 1000 + uniform_sum;
    }
    tack::Array out = dev().zeros(tack::DType::I64, {size});
    k(out, dev().from_host(a), n);
    EXPECT_EQ(out.to_host<std::int64_t>(), want) << "size " << size;
  }
}

}  // namespace
