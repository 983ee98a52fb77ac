// Debug mode (DESIGN §4): with tack::set_debug(true) every array access is
// checked against its extent on every backend. An out-of-range store or atomic
// is skipped and a load gives 0; the launch then raises tack::IndexError naming
// the kernel, the array, the index, its extent and the source line. Without
// debug mode nothing is checked on compiled backends, so those kernels are only
// run in range here.
#include "conformance/backend_param.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(DebugMode);

// Turns debug mode on for one test.
struct DebugOn {
  DebugOn() { tack::set_debug(true); }
  ~DebugOn() { tack::set_debug(false); }
};

TEST_P(DebugMode, OffByOneStencilNamesArrayIndexExtentAndLine) {
  const int line = __LINE__ + 3;
  auto stencil = tack::kernel("stencil", [](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = in[i + 1] - in[i];  // reads in[n] at the last i
    });
  });
  DebugOn debug;
  const std::int64_t n = 64;
  std::vector<float> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i * i);
  tack::Array in = dev().from_host(host);
  tack::Array out = dev().zeros(tack::DType::F32, {n});
  std::string message;
  try {
    stencil(out, in);
    tack::sync();
  } catch (const tack::IndexError& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "no IndexError on " << backend();
  for (const std::string& part : {std::string("kernel 'stencil'"), std::string("index 64"), std::string("argument 1"),
                                  std::string("(extent 64)"), std::string("debug_mode.cpp:") + std::to_string(line)})
    EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message;
  // Every in-range element was computed; the bad read gave 0.
  std::vector<float> r = out.to_host<float>();
  for (std::int64_t i = 0; i + 1 < n; ++i) ASSERT_EQ(r[i], host[i + 1] - host[i]) << "at " << i;
  EXPECT_EQ(r[n - 1], 0.0f - host[n - 1]);
}

tack::Kernel shift_store_kernel() {
  return tack::kernel("shift_store", [](Array out, Array count) {
    parallel_for(out.size(), [&](Index i) {
      out[i + 2] = i;           // the last two stores fall outside
      atomic_add(count, i, 1);  // count has half the size: the upper half is outside
    });
  });
}

TEST_P(DebugMode, OutOfRangeStoresAndAtomicsAreSkipped) {
  auto shift = shift_store_kernel();
  DebugOn debug;
  tack::Array out = zeros<std::int32_t>(dev(), 8);
  tack::Array count = zeros<std::int32_t>(dev(), 4);
  EXPECT_THROW(shift(out, count), tack::IndexError);
  std::vector<std::int32_t> want = {0, 0, 0, 1, 2, 3, 4, 5};
  EXPECT_EQ(out.to_host<std::int32_t>(), want);
  EXPECT_EQ(count.to_host<std::int32_t>(), std::vector<std::int32_t>(4, 1));
}

// The memory just past an array is checked directly: the arrays are wrapped
// (array_from_ptr) inside larger host blocks whose other bytes hold a pattern,
// so a store or atomic that was not skipped would change the guard words. (Two
// separate allocations prove nothing: a stray store lands in the first one's
// padding.)
TEST_P(DebugMode, OutOfRangeStoresAndAtomicsLeaveTheNeighbouringMemoryAlone) {
  if (!wraps_host_memory()) GTEST_SKIP() << backend() << " cannot wrap host memory (its arrays are device memory)";
  auto shift = shift_store_kernel();
  DebugOn debug;
  constexpr std::int32_t kGuard = 0x5a5a5a5a;
  constexpr std::size_t kPad = 16;
  // [kPad guard words][the array][kPad guard words]
  std::vector<std::int32_t> out_block(kPad + 8 + kPad, kGuard), count_block(kPad + 4 + kPad, kGuard);
  std::fill_n(out_block.begin() + kPad, 8, 0);
  std::fill_n(count_block.begin() + kPad, 4, 0);
  {
    tack::Array out = tack::array_from_ptr(dev(), out_block.data() + kPad, tack::DType::I32, {8});
    tack::Array count = tack::array_from_ptr(dev(), count_block.data() + kPad, tack::DType::I32, {4});
    EXPECT_THROW(shift(out, count), tack::IndexError);
    tack::sync();
  }
  std::vector<std::int32_t> want_out(kPad + 8 + kPad, kGuard), want_count(kPad + 4 + kPad, kGuard);
  const std::int32_t shifted[8] = {0, 0, 0, 1, 2, 3, 4, 5};
  std::copy(shifted, shifted + 8, want_out.begin() + kPad);
  std::fill_n(want_count.begin() + kPad, 4, 1);
  EXPECT_EQ(out_block, want_out) << "words " << kPad << " to " << kPad + 7 << " are the array, the rest guard words";
  EXPECT_EQ(count_block, want_count) << "words " << kPad << " to " << kPad + 3
                                     << " are the array, the rest guard words";
}

TEST_P(DebugMode, InRangeKernelsRunUnchangedAndModeIsPartOfTheVariant) {
  auto axpy = tack::kernel("debug_axpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  std::vector<float> hx(100, 2.0f), hy(100, 1.0f);
  tack::Array x = dev().from_host(hx), y = dev().from_host(hy);
  // The variant cache: a variant is made (compiled or loaded from disk) only when the mode flips to one this
  // kernel has no variant for yet; a call in a mode seen before finds its variant in memory.
  auto made = [] { return tack::compile_stats().variants; };
  const std::uint64_t before = made();
  axpy(y, x, 3.0f);  // a plain variant
  EXPECT_EQ(made(), before + 1) << "the first call makes the plain variant";
  axpy(y, x, -3.0f);
  EXPECT_EQ(made(), before + 1) << "the same mode: the plain variant again";
  {
    DebugOn debug;
    axpy(y, x, 3.0f);  // a checked one
    EXPECT_EQ(made(), before + 2) << "debug mode on: a checked variant of its own, not the plain one";
    axpy(y, x, 1.5f);
    EXPECT_EQ(made(), before + 2) << "debug mode still on: the checked variant again";
    std::string checked = tack::inspect(axpy, backend(), tack::ArraySpec{}, tack::ArraySpec{}, 1.0f).typed_ir;
    EXPECT_NE(checked.find("Array<i32, rank 1>"), std::string::npos) << "no error array in:\n" << checked;
  }
  axpy(y, x, 1.5f);
  EXPECT_EQ(made(), before + 2) << "debug mode off again: the plain variant made first";
  std::string plain = tack::inspect(axpy, backend(), tack::ArraySpec{}, tack::ArraySpec{}, 1.0f).typed_ir;
  EXPECT_EQ(plain.find("Array<i32, rank 1>"), std::string::npos) << plain;
  EXPECT_EQ(y.to_host<float>(), std::vector<float>(100, 13.0f));  // 1 + 2 * (3 - 3 + 3 + 1.5 + 1.5)
}

TEST_P(DebugMode, SharedArraysAreCheckedInWorkgroupKernels) {
  if (!caps().supports_workgroups) GTEST_SKIP() << backend() << " has no workgroups";
  auto k = tack::kernel("shared_oob", [](Array out) {
    workgroup_for(1, [&](Group g) {
      auto tile = g.shared<float>(128);
      if_(g.local_id() < 128, [&] { tile[g.local_id()] = 1.0f; });
      g.barrier();
      out[g.local_id()] = tile[g.local_id()];  // items 128..255 read past the tile
    });
  });
  DebugOn debug;
  tack::Array out = zeros<float>(dev(), 256);
  try {
    k(out);
    FAIL() << "no IndexError";
  } catch (const tack::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("shared array 0 (extent 128)"), std::string::npos) << e.what();
  }
  std::vector<float> r = out.to_host<float>();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(r[i], i < 128 ? 1.0f : 0.0f) << "at " << i;
}

}  // namespace
