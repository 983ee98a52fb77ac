// What of the metal backend can be tested off Apple platforms: its MSL
// reduction source (a 32-bit count, a 64-bit loop index, Metal's relaxed
// 32-bit atomics), the launch limit, the batching constants and TACK_DUMP_MSL.
// The Objective-C++ itself is parsed by compile_checks.metal_runtime and runs
// only on a Mac.
#include <gtest/gtest.h>

#include "backends/metal/metal_kernel.hpp"
#include "backends/metal/metal_queue.hpp"
#include "codegen/reduction_source.hpp"
#include "support/scoped_env.hpp"

#include <tack/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {
using tack::codegen::ArrayReduction;
using tack::codegen::msl_reduction_source;
namespace metal = tack::backends::metal;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(MetalReductionSource, SignatureAndCount) {
  for (ArrayReduction op : {ArrayReduction::Sum, ArrayReduction::Min, ArrayReduction::Max}) {
    const tack::codegen::CSource s = msl_reduction_source(op);
    SCOPED_TRACE(s.entry);
    EXPECT_TRUE(has(s.text, "#include <metal_stdlib>"));
    EXPECT_TRUE(has(s.text, "kernel void " + s.entry +
                                "(device const float* x [[buffer(0)]], "
                                "device atomic_uint* out [[buffer(1)]],"));
    // The count is 32-bit (the host reduces 2^32 elements or more); the index is 64-bit, so adding the
    // stride cannot wrap below n.
    EXPECT_TRUE(has(s.text, "constant uint& n [[buffer(2)]]"));
    EXPECT_TRUE(has(s.text, "for (ulong i = (ulong)group * 256 + lid; i < (ulong)n; i += stride)"));
    EXPECT_FALSE(has(s.text, "long n"));
    EXPECT_TRUE(has(s.text, "threadgroup float lanes[256];"));
    EXPECT_TRUE(has(s.text, "threadgroup_barrier(mem_flags::mem_threadgroup);"));
    EXPECT_TRUE(has(s.text, "atomic_compare_exchange_weak_explicit(p, &old, desired, memory_order_relaxed,"));
    EXPECT_FALSE(has(s.text, "double"));
  }
}

TEST(MetalReductionSource, EntriesIdentitiesAndCombine) {
  const auto sum = msl_reduction_source(ArrayReduction::Sum);
  const auto min = msl_reduction_source(ArrayReduction::Min);
  const auto max = msl_reduction_source(ArrayReduction::Max);
  EXPECT_EQ(sum.entry, "tack_reduce_sum_f32");
  EXPECT_EQ(min.entry, "tack_reduce_min_f32");
  EXPECT_EQ(max.entry, "tack_reduce_max_f32");
  EXPECT_TRUE(has(sum.text, "float acc = as_type<float>(0x00000000u);"));
  EXPECT_TRUE(has(min.text, "float acc = as_type<float>(0x7fc00000u);"));  // NaN: any element replaces it
  EXPECT_TRUE(has(max.text, "float acc = as_type<float>(0x7fc00000u);"));
  EXPECT_TRUE(has(sum.text, "{ return a + b; }"));
  EXPECT_TRUE(has(min.text, "isnan(a) ? b : isnan(b) ? a : (b < a ? b : a)"));
  EXPECT_TRUE(has(max.text, "isnan(a) ? b : isnan(b) ? a : (b > a ? b : a)"));
}

TEST(MetalLaunch, LimitIsTwoToThe32Threads) {
  EXPECT_EQ(metal::kMaxLaunch, std::uint64_t{1} << 32);
  EXPECT_NO_THROW(metal::check_launch("k", 1, false));
  EXPECT_NO_THROW(metal::check_launch("k", std::int64_t{1} << 32, false));
  EXPECT_THROW(metal::check_launch("k", (std::int64_t{1} << 32) + 1, false), tack::InvalidArgument);
  // A workgroup launch counts groups of 256 threads.
  EXPECT_NO_THROW(metal::check_launch("k", (std::int64_t{1} << 32) / 256, true));
  EXPECT_THROW(metal::check_launch("k", (std::int64_t{1} << 32) / 256 + 1, true), tack::InvalidArgument);
  try {
    metal::check_launch("saxpy", std::int64_t{5} << 32, false);
    FAIL() << "no error";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_TRUE(has(e.what(), "kernel 'saxpy'")) << e.what();
    EXPECT_TRUE(has(e.what(), "21474836480 work-items")) << e.what();
    EXPECT_TRUE(has(e.what(), "thread_position_in_grid")) << e.what();
  }
}

TEST(MetalQueue, BatchAndInFlight) {
  EXPECT_EQ(metal::Queue::kBatch, 64);
  EXPECT_EQ(metal::Queue::kInFlight, 4);
}

using tack_test::ScopedEnv;

TEST(MetalDumpMsl, FlagAndPath) {
  EXPECT_EQ(metal::msl_dump_path("tack_kernel_saxpy"), "/tmp/tack_tack_kernel_saxpy.msl");
  for (const char* off : {"0", "false", "no", "off", "OFF", ""}) {
    ScopedEnv env("TACK_DUMP_MSL", off);
    EXPECT_FALSE(metal::msl_dump_enabled()) << "'" << off << "'";
  }
  {
    ScopedEnv env("TACK_DUMP_MSL", nullptr);
    EXPECT_FALSE(metal::msl_dump_enabled());
  }
  for (const char* on : {"1", "yes", "true"}) {
    ScopedEnv env("TACK_DUMP_MSL", on);
    EXPECT_TRUE(metal::msl_dump_enabled()) << "'" << on << "'";
  }
}

TEST(MetalDumpMsl, WritesTheSourceOnlyWhenSet) {
  const std::string entry = "tack_unit_metal_dump_" + std::to_string(::getpid());
  const std::string path = metal::msl_dump_path(entry);
  std::filesystem::remove(path);
  const tack::codegen::CSource src{"// some MSL\nkernel void f() {}\n", entry};
  {
    ScopedEnv env("TACK_DUMP_MSL", "0");
    metal::dump_msl(src);
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  {
    ScopedEnv env("TACK_DUMP_MSL", "1");
    metal::dump_msl(src);
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), src.text);
  std::filesystem::remove(path);
}

}  // namespace
