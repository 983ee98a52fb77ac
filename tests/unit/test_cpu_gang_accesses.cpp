// The SIMD path's memory accesses (src/codegen/llvm/llvm_gang_memory.cpp): a read of an element followed at once by
// a write to it shares one test of whether every lane runs, and gathers and scatters run unmasked with the lanes
// not running sent to a scratch element. What a gang computes must be what the work-items one by one compute, in
// partial gangs and under a mask too, and a lane that does not run must touch no element (its index may be far
// out of range). Fields of small records, one record per lane, come from one masked block load and shuffles.
// unit.cpu_scalar_path runs the results on the scalar path too.
#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// y[i] read, then written with a value of what was read: in a 1-D and a 2-D launch.
tack::Kernel read_then_write_1d() {
  return tack::kernel("read_then_write_1d", [](Array y, Array x) {
    parallel_for(y.size(), [&](Index i) {
      Value old = y[i];
      y[i] = old * 2.0f + x[i];
    });
  });
}

tack::Kernel read_then_write_2d() {
  return tack::kernel("read_then_write_2d", [](Array y, Array x) {
    parallel_for({y.shape(0), y.shape(1)}, [&](Index i, Index j) {
      Value old = y(i, j);
      y(i, j) = old - x(i, j);
    });
  });
}

TEST(CpuGangAccesses, AReadThenAWriteOfOneElementShareOneTestOfTheMask) {
  if (const char* simd = std::getenv("TACK_CPU_SIMD"); simd && std::string(simd) == "0")
    GTEST_SKIP() << "TACK_CPU_SIMD=0: the scalar path has no gangs";
  const tack::ArraySpec f1{DType::F32, 1};
  // x[i]'s load and the pair: two tests, where one each would make three.
  const std::string one = tack::inspect(read_then_write_1d(), "cpu", f1, f1).source;
  EXPECT_EQ(count(one, "\nlanes.all"), 2u) << one;
  const tack::ArraySpec f2{DType::F32, 2};
  const std::string two = tack::inspect(read_then_write_2d(), "cpu", f2, f2).source;
  EXPECT_EQ(count(two, "\nlanes.all"), 2u) << two;
}

TEST(CpuGangAccesses, AReadThenAWriteGiveWhatTheWorkItemsGive) {
  tack::Device cpu = tack::device("cpu");
  int wrong = 0;
  for (std::int64_t n : {1, 3, 7, 8, 9, 16, 17, 31, 100}) {
    std::vector<float> y(static_cast<std::size_t>(n)), x(y.size());
    for (std::size_t e = 0; e < y.size(); ++e) {
      y[e] = float(e % 13) - 6.0f;
      x[e] = float(e % 5);
    }
    tack::Array ty = cpu.from_host(y), tx = cpu.from_host(x);
    read_then_write_1d()(ty, tx);
    tack::Array ty2 = cpu.from_host(y, {1, n}), tx2 = cpu.from_host(x, {1, n});
    read_then_write_2d()(ty2, tx2);
    const std::vector<float> got = ty.to_host<float>(), got2 = ty2.to_host<float>();
    for (std::size_t e = 0; e < y.size(); ++e) {
      wrong += got[e] != y[e] * 2.0f + x[e];
      wrong += got2[e] != y[e] - x[e];
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(CpuGangAccesses, LanesThatDoNotRunNeitherGatherNorScatter) {
  // Every other work-item's index is 2^40 elements out of range, computed where every lane runs: it must not reach
  // memory, in the gather or in the scatter, and in a partial gang neither.
  auto k = tack::kernel("masked_gather_scatter", [](Array out, Array src, Array dst) {
    parallel_for(out.size(), [&](Index i) {
      Value far = Value(std::int64_t{1} << 40);
      Value at = select(i % 2 == 0, src.size() - 1 - i, far + i);
      if_(at < src.size(), [&] {
        out[i] = src[at] + 1.0f;
        dst[at] = out[i];
      });
    });
  });
  tack::Device cpu = tack::device("cpu");
  int wrong = 0;
  for (std::int64_t n : {5, 8, 13, 64}) {
    std::vector<float> src(static_cast<std::size_t>(n));
    for (std::size_t e = 0; e < src.size(); ++e) src[e] = float(e);
    tack::Array out = cpu.zeros(DType::F32, {n}), dst = cpu.zeros(DType::F32, {n});
    k(out, cpu.from_host(src), dst);
    const std::vector<float> got = out.to_host<float>(), put = dst.to_host<float>();
    std::vector<float> want(src.size(), 0.0f), want_dst(src.size(), 0.0f);
    for (std::size_t e = 0; e < src.size(); e += 2) {
      want[e] = src[src.size() - 1 - e] + 1.0f;
      want_dst[src.size() - 1 - e] = want[e];
    }
    for (std::size_t e = 0; e < src.size(); ++e) wrong += got[e] != want[e] || put[e] != want_dst[e];
  }
  EXPECT_EQ(wrong, 0);
}

// out[i] = the fields of record i of x (kSize elements each) weighted by field, x[kSize * i + f], plus field 1 of
// the next record (x[kSize * i + kSize + 1]), for the records x holds whole; of its last record, cut after field
// 0, only that field. Work-items past the records do not run.
template <int kSize>
tack::Kernel record_reads(const char* name) {
  return tack::kernel(name, [](Array out, Array x, Scalar records) {
    parallel_for(out.size(), [&](Index i) {
      if_(i < records, [&] {
        Var acc = cast<double>(x[kSize * i]);
        if_(i + 1 < records, [&] {
          for (int f = 1; f < kSize; ++f) acc = acc * 3.0 + cast<double>(x[kSize * i + f]);
        });
        if_(i + 2 < records, [&] { acc = acc + 1000.0 * cast<double>(x[kSize * i + (kSize + 1)]); });
        out[i] = acc;
      });
    });
  });
}

template <int kSize, class T>
void check_records(DType t, int& wrong) {
  static const tack::Kernel k = record_reads<kSize>("record_reads");
  tack::Device cpu = tack::device("cpu");
  for (std::int64_t n : {1, 2, 5, 15, 16, 17, 33, 100}) {
    // More work-items than records: the lanes past the last record do not run, and the array ends right after
    // field 0 of the last record, inside a gang's block.
    const std::int64_t records = n - n / 4;
    std::vector<T> x(static_cast<std::size_t>(kSize * (records - 1) + 1));
    for (std::size_t e = 0; e < x.size(); ++e) x[e] = T(e % 7 + 1);
    tack::Array out = cpu.zeros(DType::F64, {n});
    k(out, cpu.from_host(x), records);
    const std::vector<double> got = out.to_host<double>();
    for (std::int64_t i = 0; i < n; ++i) {
      double want = 0.0;
      if (i < records) {
        const auto at = [&](std::int64_t e) { return double(x[std::size_t(e)]); };
        want = at(kSize * i);
        if (i + 1 < records)
          for (int f = 1; f < kSize; ++f) want = want * 3.0 + at(kSize * i + f);
        if (i + 2 < records) want += 1000.0 * at(kSize * i + kSize + 1);
      }
      wrong += got[std::size_t(i)] != want;
      EXPECT_EQ(got[std::size_t(i)], want)
          << "records of " << kSize << ", " << tack::dtype_name(t) << ", n " << n << ", item " << i;
    }
  }
}

TEST(CpuGangAccesses, RecordFieldsComeFromOneMaskedBlockLoad) {
  if (const char* simd = std::getenv("TACK_CPU_SIMD"); simd && std::string(simd) == "0")
    GTEST_SKIP() << "TACK_CPU_SIMD=0: the scalar path has no gangs";
  const std::string text = tack::inspect(record_reads<8>("record_reads"), "cpu", tack::ArraySpec{DType::F64, 1},
                                         tack::ArraySpec{DType::F32, 1}, std::int64_t{1})
                               .source;
  EXPECT_EQ(count(text, "@llvm.masked.gather"), 0u) << text;
  // One block load per field read (LLVM merges them into one), none for a field of another kind of index.
  std::size_t block_loads = 0;
  for (std::size_t at = text.find("call <"); at != std::string::npos; at = text.find("call <", at + 1))
    block_loads += text.compare(text.find('@', at), 18, "@llvm.masked.load.") == 0;
  EXPECT_EQ(block_loads, 9u) << text;
}

TEST(CpuGangAccesses, RecordFieldsGiveWhatTheWorkItemsGive) {
  int wrong = 0;
  check_records<2, double>(DType::F64, wrong);
  check_records<3, std::uint8_t>(DType::U8, wrong);
  check_records<4, std::int32_t>(DType::I32, wrong);
  check_records<8, float>(DType::F32, wrong);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
