// The CPU's private copies for atomic adds (src/analysis/private_adds, src/backends/cpu/private_adds): which
// arrays the analysis lets the launch privatize, that the code then adds into them with no atomic instruction,
// and that launches over a small array (copies) and a large one (atomics) add up exactly, on every path a launch
// takes (a sampled serial prefix, the pool's chunks). A whole record added into a record (analysis/record_adds) is
// one short vector add per lane. unit.cpu_scalar_path runs these on the scalar path too.
#include "analysis/private_adds.hpp"
#include "backends/cpu/jit.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;
using tack::analysis::add_only_params;
using tack::analysis::plan_private_adds;
using tack_test::typed_kernel;

// Work-item i adds 1 into bin (i * i) % bins (lanes of a gang apart) and i into bin (i / 32) % bins (a gang's
// lanes on one bin), and subtracts 1 from bin i % bins of `down`.
tack::Kernel histogram() {
  return tack::kernel("histogram", [](Array counts, Array sums, Array down, Scalar n) {
    parallel_for(n, [&](Index i) {
      atomic_add(counts, (i * i) % counts.size(), 1);
      atomic_add(sums, (i / 32) % sums.size(), i);
      atomic_sub(down, i % down.size(), 1);
    });
  });
}

TEST(CpuPrivateAdds, ArraysOnlyAddedIntoQualify) {
  auto k = tack::kernel("mixed", [](Array adds, Array read, Array result, Array stored, Array maxed, Array src) {
    parallel_for(src.size(), [&](Index i) {
      atomic_add(adds, i % 4, src[i]);
      atomic_sub(adds, i % 3, 1.0f);
      atomic_add(read, i % 4, read[0]);  // also read
      Value old = atomic_add(result, i % 4, 1.0f);
      src[i] = old;  // the old value is read
      atomic_add(stored, i % 4, 1.0f);
      stored[0] = 2.0f;  // also stored
      atomic_max(maxed, i % 4, 1.0f);
    });
  });
  const tack::ir::Kernel typed = typed_kernel(k, std::vector<tack::passes::ParamType>(6, {DType::F32, 1}));
  EXPECT_EQ(add_only_params(typed), 1u);
  // The traced IR answers the same, as the call reads it before typing.
  EXPECT_EQ(add_only_params(tack::detail::Access::impl(k)->traced()), 1u);
  EXPECT_EQ(tack::detail::Access::impl(k)->add_only_params(), 1u);
  EXPECT_EQ(plan_private_adds(typed, tack::analysis::plan_row_scatter(typed)),
            (std::vector<bool>{true, false, false, false, false, false}));
  // Bool, 8- and 16-bit arrays are not combined by the launch.
  auto narrow = tack::kernel(
      "narrow", [](Array a, Array n) { parallel_for(n.size(), [&](Index i) { atomic_add(a, i % 4, 1); }); });
  const tack::ir::Kernel u16 = typed_kernel(narrow, {{DType::U16, 1}, {DType::F32, 1}});
  const tack::ir::Kernel u32 = typed_kernel(narrow, {{DType::U32, 1}, {DType::F32, 1}});
  EXPECT_EQ(plan_private_adds(u16, tack::analysis::plan_row_scatter(u16)), (std::vector<bool>{false, false}));
  EXPECT_EQ(plan_private_adds(u32, tack::analysis::plan_row_scatter(u32)), (std::vector<bool>{true, false}));
}

TEST(CpuPrivateAdds, TheCodeHasNoAtomicInstructionForPrivateAdds) {
  const tack::ir::Kernel typed =
      typed_kernel(histogram(), {{DType::I32, 1}, {DType::F64, 1}, {DType::U32, 1}, {DType::I64, 0}});
  tack::backends::cpu::Jit& jit = tack::backends::cpu::shared_jit();
  const std::string copies = jit.ir_text(typed, {.noalias = true, .private_adds = true});
  EXPECT_EQ(copies.find("atomicrmw"), std::string::npos) << copies;
  EXPECT_EQ(copies.find("cmpxchg"), std::string::npos) << copies;
  // Without the call's flag, or with arrays that may alias, the adds stay atomic.
  EXPECT_NE(jit.ir_text(typed, {.noalias = true}).find("atomicrmw"), std::string::npos);
  EXPECT_NE(jit.ir_text(typed, {.noalias = false, .private_adds = true}).find("atomicrmw"), std::string::npos);
}

// Runs the histogram `launches` times over `n` work-items into arrays of `bins` elements that start at `start`,
// on a pool of four threads, and checks every element exactly (whole numbers: any order of the adds is exact).
void check_histogram(std::int64_t bins, std::int64_t n, int launches, double start) {
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{4}}});
  tack::Array counts = cpu.from_host(std::vector<std::int32_t>(static_cast<size_t>(bins), std::int32_t(start)));
  tack::Array sums = cpu.from_host(std::vector<double>(static_cast<size_t>(bins), start));
  tack::Array down = cpu.from_host(std::vector<std::uint32_t>(static_cast<size_t>(bins), std::uint32_t(start)));
  tack::Kernel k = histogram();
  for (int l = 0; l < launches; ++l) k(counts, sums, down, n);
  std::vector<std::int64_t> want_counts(static_cast<size_t>(bins)), want_down(static_cast<size_t>(bins));
  std::vector<double> want_sums(static_cast<size_t>(bins));
  for (std::int64_t i = 0; i < n; ++i) {
    want_counts[static_cast<size_t>((i * i) % bins)] += 1;
    want_sums[static_cast<size_t>((i / 32) % bins)] += double(i);
    want_down[static_cast<size_t>(i % bins)] += 1;
  }
  const std::vector<std::int32_t> got_counts = counts.to_host<std::int32_t>();
  const std::vector<double> got_sums = sums.to_host<double>();
  const std::vector<std::uint32_t> got_down = down.to_host<std::uint32_t>();
  int wrong = 0;
  for (size_t b = 0; b < static_cast<size_t>(bins); ++b) {
    wrong += got_counts[b] != std::int32_t(start) + launches * want_counts[b];
    wrong += got_sums[b] != start + launches * want_sums[b];
    wrong += got_down[b] != static_cast<std::uint32_t>(std::uint32_t(start) - std::uint32_t(launches * want_down[b]));
  }
  EXPECT_EQ(wrong, 0) << bins << " bins, " << n << " work-items";
}

TEST(CpuPrivateAdds, SmallArraysAddUpExactlyOnEveryPathOfALaunch) {
  // The variant's first launches run a sampled prefix on the launching thread, later ones fan out.
  check_histogram(61, 300007, 12, 5.0);
  check_histogram(1, 100003, 6, 0.0);  // every work-item on one element
  check_histogram(7, 5, 3, 2.0);       // fewer work-items than threads
}

TEST(CpuPrivateAdds, ArraysTooLargeForCopiesKeepTheAtomicsAndTheSums) {
  check_histogram(9000, 300007, 4, 1.0);  // 9000 doubles: 72 KiB, above the 32 KiB of a copy
}

TEST(CpuPrivateAdds, AnElementNobodyAddsIntoKeepsItsBitsAndNaNSpreads) {
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{4}}});
  auto k = tack::kernel("into_even", [](Array x, Array v) {
    parallel_for(v.size(), [&](Index i) { atomic_add(x, 2 * (i % 4), v[i]); });
  });
  tack::Array x = cpu.from_host(std::vector<float>(8, -0.0f));
  std::vector<float> values(200000, 0.5f);
  values[77777] = NAN;
  tack::Array v = cpu.from_host(values);
  k(x, v);
  const std::vector<float> got = x.to_host<float>();
  for (size_t e = 1; e < 8; e += 2) EXPECT_TRUE(std::signbit(got[e]) && got[e] == 0.0f) << e << ": " << got[e];
  EXPECT_TRUE(std::isnan(got[2 * (77777 % 4)]));
  for (size_t e = 0; e < 8; e += 2)
    if (e != 2 * (77777 % 4)) EXPECT_EQ(got[e], 0.5f * 50000) << e;
}

TEST(CpuPrivateAdds, AKernelThatReadsWhatItsAddReturnedKeepsItsTickets) {
  // Tickets from a counter: with private copies two work-items would draw the same one.
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{4}}});
  auto k = tack::kernel("tickets", [](Array counter, Array order) {
    parallel_for(order.size(), [&](Index i) {
      Value t = atomic_add(counter, 0, 1);
      order[t] = i;
    });
  });
  const std::int64_t n = 200000;
  tack::Array counter = cpu.zeros(DType::I32, {1});
  tack::Array order = cpu.from_host(std::vector<std::int32_t>(static_cast<size_t>(n), -1));
  k(counter, order);
  std::vector<std::int32_t> got = order.to_host<std::int32_t>();
  std::vector<bool> seen(static_cast<size_t>(n), false);
  int wrong = 0;
  for (std::int32_t w : got) {
    if (w < 0 || w >= n || seen[static_cast<size_t>(w)])
      ++wrong;
    else
      seen[static_cast<size_t>(w)] = true;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counter.to_host<std::int32_t>()[0], n);
}

TEST(CpuPrivateAdds, TheSameArrayTwiceKeepsTheAtomics) {
  // Not proven disjoint: a work-item reads through `seen` what it added through `adds`.
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{4}}});
  auto k = tack::kernel("aliased_adds", [](Array adds, Array seen, Array out) {
    parallel_for(out.size(), [&](Index i) {
      atomic_add(adds, i % 2, 1.0f);
      out[i] = seen[i % 2];
    });
  });
  tack::Array x = cpu.zeros(DType::F32, {2});
  tack::Array out = cpu.zeros(DType::F32, {100000});
  k(x, x, out);
  const std::vector<float> got = out.to_host<float>();
  int wrong = 0;
  for (float g : got) wrong += !(g >= 1.0f);  // its own add is always visible
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(x.to_host<float>(), (std::vector<float>{50000.0f, 50000.0f}));
}

// Record i % records of `sums` (4 elements each) gets record i of `points`, field for field; `counts` a 1. `kind` 0:
// every field; 1: fields 0-2 only; 2: each field from the next field of the point; 3: also a 1 into sums[0]; 4:
// every field of record i / 2 (two lanes read each record: not the gang's own records, whose addresses the lane
// pass computes from lane 0's); 5: as 0, then the work-item zeroes its record's first field (the kernel writes the
// records it adds: a gang's adds must read them before it moves on, not when the next gang's run comes).
constexpr int kRecordKinds = 6;

tack::Kernel record_sums(int kind) {
  return tack::kernel("record_sums", [kind](Array sums, Array counts, Array points, Scalar records) {
    parallel_for(points.size() / 4, [&](Index i) {
      Value c = i % records;
      Value point = kind == 4 ? i / 2 : Value(i);
      for (int f = 0; f < (kind == 1 ? 3 : 4); ++f)
        atomic_add(sums, c * 4 + f, points[point * 4 + (kind == 2 ? (f + 1) % 4 : f)]);
      atomic_add(counts, c, 1);
      if (kind == 3) atomic_add(sums, 0, 1.0f);
      if (kind == 5) points[i * 4] = 0.0f;
    });
  });
}

TEST(CpuPrivateAdds, AWholeRecordAddsAsOneVectorPerLane) {
  const std::vector<tack::passes::ParamType> types = {
      {DType::F32, 1}, {DType::I32, 1}, {DType::F32, 1}, {DType::I64, 0}};
  tack::backends::cpu::Jit& jit = tack::backends::cpu::shared_jit();
  const char* simd = std::getenv("TACK_CPU_SIMD");
  const bool gangs = !(simd && std::string(simd) == "0");
  for (int kind = 0; kind < kRecordKinds; ++kind) {
    const std::string text =
        jit.ir_text(typed_kernel(record_sums(kind), types), {.noalias = true, .private_adds = true});
    if (!gangs) continue;
    EXPECT_EQ(text.find("load <4 x float>") != std::string::npos, kind == 0 || kind == 4 || kind == 5) << kind << text;
    // A gang's adds wait for the next gang's run (llvm_gang_private_adds.cpp) unless the kernel writes the records.
    EXPECT_EQ(text.find("waiting.lanes") != std::string::npos, kind != 5) << kind << text;
  }
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{4}}});
  for (int kind = 0; kind < kRecordKinds; ++kind) {
    for (std::int64_t n : {1, 7, 16, 17, 33, 100003}) {
      const std::int64_t records = 5;
      std::vector<float> points(static_cast<size_t>(4 * n));
      for (size_t e = 0; e < points.size(); ++e) points[e] = float(e % 11) - 3.0f;
      tack::Array sums = cpu.from_host(std::vector<float>(static_cast<size_t>(4 * records), 0.5f));
      tack::Array counts = cpu.zeros(DType::I32, {records});
      record_sums(kind)(sums, counts, cpu.from_host(points), records);
      std::vector<double> want(static_cast<size_t>(4 * records), 0.5);
      std::vector<std::int32_t> want_counts(static_cast<size_t>(records), 0);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t c = i % records;
        for (int f = 0; f < (kind == 1 ? 3 : 4); ++f)
          want[static_cast<size_t>(c * 4 + f)] +=
              points[static_cast<size_t>((kind == 4 ? i / 2 : i) * 4 + (kind == 2 ? (f + 1) % 4 : f))];
        want_counts[static_cast<size_t>(c)] += 1;
        if (kind == 3) want[0] += 1.0;
      }
      const std::vector<float> got = sums.to_host<float>();
      int wrong = 0;
      for (size_t e = 0; e < got.size(); ++e) wrong += double(got[e]) != want[e];
      EXPECT_EQ(wrong, 0) << "kind " << kind << ", " << n << " work-items";
      EXPECT_EQ(counts.to_host<std::int32_t>(), want_counts) << "kind " << kind << ", " << n << " work-items";
    }
  }
}

// A 2-D launch runs its gangs row by row, the last gang of a row short: the adds a row's last gang leaves waiting
// are made at the row's end, not carried into the next row (whose first gang would add them with its own lanes).
TEST(CpuPrivateAdds, EachRowsLastGangAddsAtTheRowsEnd) {
  tack::Kernel rows = tack::kernel("record_rows", [](Array sums, Array counts, Array points, Scalar cols) {
    parallel_for({points.size() / 4 / cols, cols}, [&](Index r, Index c) {
      Value i = r * cols + c, bin = (r + c) % 3;
      for (int f = 0; f < 4; ++f) atomic_add(sums, bin * 4 + f, points[i * 4 + f]);
      atomic_add(counts, bin, 1);
    });
  });
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{3}}});
  for (std::int64_t cols : {1, 5, 16, 19, 40}) {
    const std::int64_t nrows = 7, n = nrows * cols;
    std::vector<float> points(static_cast<size_t>(4 * n));
    for (size_t e = 0; e < points.size(); ++e) points[e] = float(e % 13) - 6.0f;
    tack::Array sums = cpu.zeros(DType::F32, {12});
    tack::Array counts = cpu.zeros(DType::I32, {3});
    rows(sums, counts, cpu.from_host(points), cols);
    std::vector<float> want(12, 0.0f);
    std::vector<std::int32_t> want_counts(3, 0);
    for (std::int64_t r = 0; r < nrows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t i = r * cols + c, bin = (r + c) % 3;
        for (int f = 0; f < 4; ++f) want[static_cast<size_t>(bin * 4 + f)] += points[static_cast<size_t>(i * 4 + f)];
        want_counts[static_cast<size_t>(bin)] += 1;
      }
    EXPECT_EQ(sums.to_host<float>(), want) << cols << " columns";
    EXPECT_EQ(counts.to_host<std::int32_t>(), want_counts) << cols << " columns";
  }
}

}  // namespace
