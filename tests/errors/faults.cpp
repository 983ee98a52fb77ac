// Faults (issue 9): a device asked for more memory than it has refuses with a
// clear error and keeps the arrays it holds; a GPU compiler rejecting code gives
// CompileError with the compiler's log and the source.
#include "errors/error_helpers.hpp"
#include "support/per_backend.hpp"

#include "backends/cuda/nvrtc_compile.hpp"
#include "backends/level_zero/ocloc_compile.hpp"

#include <tack/tack.hpp>

#include <vector>

namespace {

// 2^62 bytes: more than any machine or device has, and still addressable.
constexpr std::int64_t kHugeElements = std::int64_t{1} << 60;

TACK_PER_BACKEND_SUITE(Faults);

TEST_P(Faults, AllocationLargerThanTheDeviceKeepsEarlierArrays) {
  TACK_NEED_DEVICE();
  std::vector<float> data = {1, 2, 3, 4};
  tack::Array kept = dev().from_host(data);
  try {
    tack::Array huge = dev().empty(tack::DType::F32, {kHugeElements});
    ADD_FAILURE() << "an allocation of 2^62 bytes succeeded";
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(kHugeElements * 4)), std::string::npos) << e.what();
  }
  EXPECT_EQ(kept.to_host<float>(), data);
}

// Each GPU compiler Tack loads reports a rejected source the same way.
void expect_compile_error(const std::function<void()>& compile, const char* compiler) {
  try {
    compile();
    ADD_FAILURE() << compiler << " accepted a broken source";
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << compiler << " is not available here: " << e.what();
  } catch (const tack::CompileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("undeclared_name"), std::string::npos) << "no compiler log in: " << m;
    EXPECT_NE(m.find("--- source ---"), std::string::npos) << m;
    EXPECT_NE(m.find("return undeclared_name;"), std::string::npos) << "no source in: " << m;
  }
}

const char* kBroken = "extern \"C\" __global__ void tack_kernel_broken(int* a) { a[0] = 1; }\n"
                      "static __device__ int f() { return undeclared_name; }\n";

TEST(CompilerFaults, NvrtcRejectionIsACompileErrorWithLogAndSource) {
  expect_compile_error([] { tack::backends::cuda::compile_ptx(kBroken, "tack_kernel_broken", true); }, "NVRTC");
}

// hipRTC is checked in tack_compile_checks' self-test instead: ROCm 5.2's comgr carries its own LLVM, whose
// command-line options collide with LLVM 19's once the CPU backend has initialized it in this process
// ("Option ... registered more than once", an abort inside LLVM).

TEST(CompilerFaults, OclocRejectionIsACompileErrorWithLogAndSource) {
  expect_compile_error(
      [] {
        tack::backends::level_zero::compile_with_ocloc(
            "__kernel void tack_kernel_broken(__global int* a) { a[0] = 1; }\n"
            "static int f(void) { return undeclared_name; }\n",
            "pvc", true);
      },
      "ocloc");
}

}  // namespace
