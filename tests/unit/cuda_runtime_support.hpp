// What the tests of the cuda backend over the stand-in driver share: readers of
// the fake's operation log, two kernels, and the fixture that opens the device
// and checks, after each test, that the driver was not misused.
#pragma once

#include "support/fake_cuda/fake_cuda.hpp"

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
inline std::uint64_t param_u64(const FakeCudaLaunch& l, int i) {
  std::uint64_t v = 0;
  std::memcpy(&v, l.params[i], sizeof v);
  return v;
}
// The index of the first log entry at or after `from` that equals `what` (or starts with it, for "launch "), else -1.
inline int find_entry(const std::string& what, int from = 0, std::uint64_t pointer = 0) {
  for (int i = from; i < fake_cuda_log_size(); ++i) {
    std::string e = fake_cuda_log_entry(i);
    if (e.rfind(what, 0) != 0) continue;
    if (pointer && op_at(i).pointer != pointer) continue;
    return i;
  }
  return -1;
}
// Whether the htod payloads written, since the previous launch, to the pointer parameters of launch `l` other than
// `skip` contain the float `value`: the scalar pack this launch reads.
inline bool pack_holds(const FakeCudaLaunch& l, int previous_launch_log_index, float value,
                       const std::vector<std::uint64_t>& skip) {
  for (int p = 0; p + 1 < l.param_count; ++p) {
    const std::uint64_t ptr = param_u64(l, p);
    if (std::find(skip.begin(), skip.end(), ptr) != skip.end()) continue;
    // The last upload to this pack before the launch.
    for (int i = l.log_index - 1; i > previous_launch_log_index; --i) {
      FakeCudaOp op = op_at(i);
      if (std::string(fake_cuda_log_entry(i)) != "htod" || op.pointer != ptr) continue;
      for (std::size_t at = 0; at + sizeof(float) <= op.bytes; at += sizeof(float)) {
        float f;
        std::memcpy(&f, static_cast<const unsigned char*>(op.payload) + at, sizeof f);
        if (f == value) return true;
      }
      break;
    }
  }
  return false;
}

inline const tack::Kernel& saxpy() {
  static const tack::Kernel k = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  return k;
}
inline const tack::Kernel& fill_n() {
  static const tack::Kernel k =
      tack::kernel("fill_n", [](Array y, Scalar n) { parallel_for(n, [&](Index i) { y[i] = 7.0f; }); });
  return k;
}

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
