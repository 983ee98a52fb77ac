// Two kernels with the same name and the same IR share one compiled variant (source
// lines are not part of the IR hash), but an error raised while one of them runs names
// that kernel's lines, never its twin's.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <iostream>
#include <string>

using namespace tack::lang;

namespace {

// The same kernel twice, on two lines: each stores one element past the end.
const int kFirstLine = __LINE__ + 2;  // the line of the store
tack::Kernel first() {
  return tack::kernel("twin", [](Array a) { parallel_for(1, [&](Index i) { a[i + 4] = 1; }); });
}
const int kSecondLine = __LINE__ + 2;
tack::Kernel second() {
  return tack::kernel("twin", [](Array a) { parallel_for(1, [&](Index i) { a[i + 4] = 1; }); });
}

std::string index_error(const tack::Kernel& k, tack::Array& a) {
  try {
    k(a);
    a.to_host<float>();
  } catch (const tack::IndexError& e) {
    return e.what();
  }
  return "(no IndexError)";
}

void expect_own_lines(const std::string& device, bool debug) {
  tack::Device dev;
  try {
    dev = tack::device(device);
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << device << " cannot run here: " << e.what();
  }
  tack::set_debug(debug);
  tack::Kernel a = first(), b = second();
  tack::Array arr = dev.zeros(tack::DType::F32, {4});
  const std::string where = "twin_kernel_lines.cpp:";
  tack::reset_compile_stats();
  for (int round = 0; round < 2; ++round) {  // the second round runs both from the cache
    std::string msg_a = index_error(a, arr), msg_b = index_error(b, arr);
    EXPECT_EQ(tack::compile_stats().variants, 1u) << "the twins share one variant";
    EXPECT_NE(msg_a.find("kernel 'twin'"), std::string::npos) << msg_a;
    EXPECT_NE(msg_a.find(where + std::to_string(kFirstLine)), std::string::npos) << msg_a;
    EXPECT_EQ(msg_a.find(where + std::to_string(kSecondLine)), std::string::npos) << msg_a;
    EXPECT_NE(msg_b.find(where + std::to_string(kSecondLine)), std::string::npos) << msg_b;
    EXPECT_EQ(msg_b.find(where + std::to_string(kFirstLine)), std::string::npos) << msg_b;
  }
  tack::set_debug(false);
  EXPECT_EQ(arr.to_host<float>(), std::vector<float>(4, 0.0f)) << "the bad stores were skipped";
}

TEST(TwinKernelLines, InterpreterIndexErrorNamesTheCalledKernelsLine) { expect_own_lines("interp", false); }
TEST(TwinKernelLines, DebugModeIndexErrorNamesTheCalledKernelsLineOnCpu) { expect_own_lines("cpu", true); }
TEST(TwinKernelLines, DebugModeIndexErrorNamesTheCalledKernelsLineOnOpencl) { expect_own_lines("opencl", true); }

}  // namespace
