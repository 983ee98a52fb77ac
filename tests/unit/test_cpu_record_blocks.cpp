// The gang's own record blocks (src/codegen/llvm/llvm_gang_record_blocks.cpp): fields of record i + lane of an array
// the kernel never writes, read where every gang reaches, come from one block loaded at the top of each gang, by a
// plain load where every lane runs and the block lies inside the array. The block must never reach past the array
// (the test's array ends flush against memory no one may read), must give what the work-items one by one give in
// partial gangs, at a cut last record and in 2-D rows, and must not be taken where a write could change the records
// before a read (a kernel writing the array, or writing any array when the call's arrays may overlap).
// unit.cpu_scalar_path runs the results on the scalar path too.
#include "backends/cpu/jit.hpp"
#include "support/guarded_memory.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;
using tack_test::typed_kernel;

// out[i] = fields 0 and 1 of record i of x (4 floats each) in a loop, plus, where record i is whole (i + 1 < n),
// fields 2 and 3 under a mask. The last record is cut after field 1. `write_x`: then zero field 0 of record i.
tack::Kernel own_records(bool write_x) {
  return tack::kernel(write_x ? "own_records_w" : "own_records", [write_x](Array out, Array x, Scalar n) {
    parallel_for(out.size(), [&](Index i) {
      Var acc = 0.0f;
      for_range(0, 2, [&](Index r) { acc = acc * 3.0f + x[4 * i] + x[4 * i + 1] * cast<float>(r + 1); });
      if_(i + 1 < n, [&] { acc = acc + 100.0f * x[4 * i + 2] + 1000.0f * x[4 * i + 3]; });
      out[i] = acc;
      if (write_x) x[4 * i] = 0.0f;
    });
  });
}

float own_records_want(const float* x, std::int64_t i, std::int64_t n) {
  float acc = 0.0f;
  for (int r = 0; r < 2; ++r) acc = acc * 3.0f + x[4 * i] + x[4 * i + 1] * float(r + 1);
  if (i + 1 < n) acc = acc + 100.0f * x[4 * i + 2] + 1000.0f * x[4 * i + 3];
  return acc;
}

const std::vector<tack::passes::ParamType> kTypes = {{DType::F32, 1}, {DType::F32, 1}, {DType::I64, 0}};

TEST(CpuRecordBlocks, TheGangsOwnRecordsLoadAtTheGangsTopWhereNoWriteCanChangeThem) {
  if (const char* simd = std::getenv("TACK_CPU_SIMD"); simd && std::string(simd) == "0")
    GTEST_SKIP() << "TACK_CPU_SIMD=0: the scalar path has no gangs";
  tack::backends::cpu::Jit& jit = tack::backends::cpu::shared_jit();
  auto text = [&](bool write_x, bool distinct) {
    return jit.ir_text(typed_kernel(own_records(write_x), kTypes), {.noalias = distinct});
  };
  // The block of 16 records of 4 floats, by a plain load (where every lane runs and it lies inside x).
  const std::string plain_block = "= load <64 x float>";
  EXPECT_NE(text(false, true).find(plain_block), std::string::npos) << text(false, true);
  // The kernel writes x: its records may change within the gang.
  EXPECT_EQ(text(true, true).find(plain_block), std::string::npos) << text(true, true);
  // out may overlap x, and the kernel writes out.
  EXPECT_EQ(text(false, false).find(plain_block), std::string::npos) << text(false, false);
}

TEST(CpuRecordBlocks, ABlockStopsAtTheArraysEndAndGivesWhatTheWorkItemsGive) {
  // One thread: a launch of a multiple of 16 work-items ends in a whole gang, whose block would reach past the
  // cut last record if the whole-gang load did not look at the array's end.
  tack::Device cpu = tack::device("cpu", {{"num_threads", std::int64_t{1}}});
  const tack::Kernel k = own_records(false);
  int wrong = 0;
  for (std::int64_t n : {1, 2, 7, 16, 17, 33, 64, 100, 4096, 4099}) {
    // x's last element lies flush against memory no one may read: a block reaching past it ends the process.
    const auto count = static_cast<std::size_t>(4 * (n - 1) + 2);
    tack_test::GuardedMemory memory("x", count * sizeof(float), std::size_t{1} << 20);
    auto* x = static_cast<float*>(memory.data());
    for (std::size_t e = 0; e < count; ++e) x[e] = float(e % 9) - 4.0f;
    tack::Array ax = tack::array_from_ptr(cpu, x, DType::F32, {static_cast<std::int64_t>(count)});
    tack::Array out = cpu.zeros(DType::F32, {n});
    k(out, ax, n);
    const std::vector<float> got = out.to_host<float>();
    for (std::int64_t i = 0; i < n; ++i) {
      wrong += got[static_cast<std::size_t>(i)] != own_records_want(x, i, n);
      EXPECT_EQ(got[static_cast<std::size_t>(i)], own_records_want(x, i, n)) << "n " << n << ", item " << i;
    }
  }
  EXPECT_EQ(wrong, 0);
}

// A kernel that writes the records it reads keeps reading them where it reads them: work-item i reads record i
// after zeroing field 0 of it.
TEST(CpuRecordBlocks, AKernelThatWritesTheArrayReadsWhatItWrote) {
  tack::Kernel k = tack::kernel("zero_then_read", [](Array out, Array x) {
    parallel_for(out.size(), [&](Index i) {
      x[2 * i] = 0.0f;
      out[i] = x[2 * i] + x[2 * i + 1];
    });
  });
  tack::Device cpu = tack::device("cpu");
  for (std::int64_t n : {5, 16, 37}) {
    std::vector<float> x(static_cast<std::size_t>(2 * n));
    for (std::size_t e = 0; e < x.size(); ++e) x[e] = float(e + 1);
    tack::Array out = cpu.zeros(DType::F32, {n});
    k(out, cpu.from_host(x));
    std::vector<float> want(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(2 * i + 1)];
    EXPECT_EQ(out.to_host<float>(), want) << n;
  }
}

// Rows of a 2-D launch: the block of each row's gangs starts at that row's first column.
TEST(CpuRecordBlocks, EachRowsGangsReadTheirOwnRecords) {
  tack::Kernel k = tack::kernel("row_records", [](Array out, Array x) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index r, Index c) {
      Var acc = 0.0f;
      for_range(0, 2, [&](Index k) {
        for (int f = 0; f < 3; ++f) acc = acc * 2.0f + x[3 * c + f] + cast<float>(r + k);
      });
      out(r, c) = acc;
    });
  });
  tack::Device cpu = tack::device("cpu");
  for (std::int64_t cols : {1, 5, 16, 19}) {
    const std::int64_t rows = 4;
    std::vector<float> x(static_cast<std::size_t>(3 * cols));
    for (std::size_t e = 0; e < x.size(); ++e) x[e] = float(e % 5) + 0.5f;
    tack::Array out = cpu.zeros(DType::F32, {rows, cols});
    k(out, cpu.from_host(x));
    std::vector<float> want(static_cast<std::size_t>(rows * cols));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        float acc = 0.0f;
        for (int k = 0; k < 2; ++k)
          for (int f = 0; f < 3; ++f) acc = acc * 2.0f + x[static_cast<std::size_t>(3 * c + f)] + float(r + k);
        want[static_cast<std::size_t>(r * cols + c)] = acc;
      }
    EXPECT_EQ(out.to_host<float>(), want) << cols << " columns";
  }
}

}  // namespace
