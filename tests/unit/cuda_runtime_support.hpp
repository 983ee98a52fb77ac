// What the tests of the cuda backend over the stand-in driver share: readers of
// the fake's operation log and two kernels (support/launch_path.hpp, shared with
// the hip tests), and the fixture that opens the device and checks, after each
// test, that the driver was not misused.
#pragma once

#include "support/fake_cuda/fake_cuda.hpp"
#include "support/launch_path.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cuda_test {

using namespace tack::lang;

// The operation log as strings.
inline std::vector<std::string> log_entries(int from = 0) {
  std::vector<std::string> out;
  for (int i = from; i < fake_cuda_log_size(); ++i) out.emplace_back(fake_cuda_log_entry(i));
  return out;
}
inline FakeCudaOp op_at(int index) {
  FakeCudaOp op{};
  EXPECT_TRUE(fake_cuda_log_op(index, &op));
  return op;
}
inline std::vector<FakeCudaLaunch> launches(int from = 0) {
  std::vector<FakeCudaLaunch> out;
  for (int i = from; i < fake_cuda_launch_count(); ++i) {
    FakeCudaLaunch l{};
    fake_cuda_launch(i, &l);
    out.push_back(l);
  }
  return out;
}
// The driver's log, as the shared readers (support/launch_path.hpp) see it.
struct CudaLog {
  int size() const { return fake_cuda_log_size(); }
  tack_test::LoggedOp at(int index) const {
    const FakeCudaOp op = op_at(index);
    return {fake_cuda_log_entry(index), op.pointer, op.bytes, op.payload};
  }
};
using tack_test::param_u64;
// The index of the first log entry at or after `from` that equals `what` (or starts with it, for "launch "), else -1.
inline int find_entry(const std::string& what, int from = 0, std::uint64_t pointer = 0) {
  return tack_test::find_entry(CudaLog{}, what, from, pointer);
}
// Whether launch `l` reads a scalar pack holding `value` uploaded since the previous launch (support/launch_path.hpp).
inline bool pack_holds(const FakeCudaLaunch& l, int previous_launch_log_index, float value,
                       const std::vector<std::uint64_t>& skip) {
  return tack_test::pack_holds(CudaLog{}, l, previous_launch_log_index, value, skip);
}

using tack_test::fill_n;
using tack_test::saxpy;

// A cuda device of its own (a new context and stream, attributes read now): a device with options is a new instance.
inline tack::Device fresh_device() { return tack::device("cuda", {{"device", std::int64_t{0}}}); }

class CudaRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_cuda_reset();
    try {
      dev_ = tack::device("cuda");
    } catch (const tack::BackendUnavailable& e) {
      FAIL() << "the fake driver should make cuda available: " << e.what();
    }
  }
  void TearDown() override {
    EXPECT_STREQ(fake_cuda_misuse(), "") << "the backend misused the driver";
    fake_cuda_reset();
  }
  // Kernels need NVRTC; the rest of the backend does not.
  void compile_or_skip(const std::function<void()>& first_launch) {
    try {
      first_launch();
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "NVRTC is not available: " << e.what();
    }
  }
  tack::Device dev_;
};

}  // namespace cuda_test
