// What of the metal backend can be tested off Apple platforms: the MSL of its
// device reductions (Tack kernels, generated as any kernel), the launch limit,
// the batching constants, TACK_DUMP_MSL, the checks on a wrapped id<MTLBuffer>
// and the refusal of a kDLMetal tensor with a byte offset.
// The Objective-C++ itself is parsed by compile_checks.metal_runtime and runs
// only on a Mac.
#include <gtest/gtest.h>

#include "backends/metal/metal_kernel.hpp"
#include "backends/metal/metal_memory.hpp"
#include "backends/metal/metal_queue.hpp"
#include "runtime/reductions/array_reduction_kernel.hpp"
#include "support/scoped_env.hpp"

#include <tack/error.hpp>
#include <tack/tack.hpp>

#include <dlpack/dlpack.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {
namespace metal = tack::backends::metal;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The device reductions are Tack kernels (runtime/reductions/array_reduction_kernel): Metal generates their MSL as any
// kernel's, with a 64-bit count (the host still reduces 2^32 elements or more: metal_backend.mm).
TEST(MetalReductionKernels, GeneratedAsAnyKernel) {
  for (tack::runtime::ReduceOp op :
       {tack::runtime::ReduceOp::Sum, tack::runtime::ReduceOp::Min, tack::runtime::ReduceOp::Max}) {
    const tack::Kernel& k = tack::runtime::array_reduction_kernel(op);
    SCOPED_TRACE(k.name());
    const std::string msl = tack::inspect(k, "metal", tack::ArraySpec{tack::DType::F32, 1},
                                          tack::ArraySpec{tack::DType::F32, 1}, tack::ScalarSpec{tack::DType::I64})
                                .source;
    EXPECT_TRUE(has(msl, "#include <metal_stdlib>"));
    EXPECT_TRUE(has(msl, "kernel void tack_kernel_"));
    EXPECT_TRUE(has(msl, "threadgroup float tack_reduce_f32[256]"));  // the group's tree
    EXPECT_TRUE(has(msl, "threadgroup_barrier(mem_flags::mem_threadgroup"));
    EXPECT_TRUE(has(msl, "long __n__;"));                            // the launch's count is 64-bit, as every kernel's
    EXPECT_TRUE(has(msl, "atomic_compare_exchange_weak_explicit"));  // f32 atomics are compare-and-swap loops
    EXPECT_FALSE(has(msl, "double"));
  }
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
  const tack::abi::CSource src{"// some MSL\nkernel void f() {}\n", entry};
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

// array_from_ptr on metal (MetalBuffer::wrap): an id<MTLBuffer> of the device, in shared storage, covering the array.
TEST(MetalWrappedMemory, RefusalNamesWhatIsWrong) {
  EXPECT_EQ(metal::wrapped_buffer_refusal(true, true, 64, 64, "Apple M2"), "");
  EXPECT_EQ(metal::wrapped_buffer_refusal(true, true, 100, 64, "Apple M2"), "");
  EXPECT_EQ(metal::wrapped_buffer_refusal(true, true, 0, 0, "Apple M2"), "");
  const std::string device = metal::wrapped_buffer_refusal(false, true, 64, 64, "Apple M2");
  EXPECT_TRUE(has(device, "another MTLDevice")) << device;
  EXPECT_TRUE(has(device, "Apple M2")) << device;
  const std::string storage = metal::wrapped_buffer_refusal(true, false, 64, 64, "Apple M2");
  EXPECT_TRUE(has(storage, "MTLStorageModeShared")) << storage;
  const std::string length = metal::wrapped_buffer_refusal(true, true, 63, 64, "Apple M2");
  EXPECT_TRUE(has(length, "of 63 bytes, but the array needs 64")) << length;
  // The device is checked first: another device's buffer is refused for that, whatever its length.
  EXPECT_TRUE(has(metal::wrapped_buffer_refusal(false, true, 1, 64, "Apple M2"), "another MTLDevice"));
}

TEST(MetalWrappedMemory, DlpackRefusalNoteSaysWhyAndWhatToDo) {
  const std::string note = metal::kDlpackRefusalNote;
  EXPECT_TRUE(has(note, "page-aligned")) << note;
  EXPECT_TRUE(has(note, "from_host")) << note;
}

// A kDLMetal tensor's data is an id<MTLBuffer>, wrapped whole: an offset into it is refused before any device
// is asked for, so this runs where there is no metal device.
TEST(MetalWrappedMemory, DlpackByteOffsetRefused) {
  std::int64_t shape[1] = {4};
  DLManagedTensor t{};
  t.dl_tensor.data = reinterpret_cast<void*>(std::uintptr_t{0x1000});
  t.dl_tensor.device = {kDLMetal, 0};
  t.dl_tensor.ndim = 1;
  t.dl_tensor.dtype = {kDLFloat, 32, 1};
  t.dl_tensor.shape = shape;
  t.dl_tensor.byte_offset = 16;
  try {
    (void)tack::from_dlpack(&t);
    FAIL() << "a kDLMetal tensor with a byte offset was taken";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_TRUE(has(e.what(), "kDLMetal tensor's data is an id<MTLBuffer>")) << e.what();
    EXPECT_TRUE(has(e.what(), "byte_offset must be 0, not 16")) << e.what();
  }
}
