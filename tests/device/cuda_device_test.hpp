// The fixture of the GPU tests (the cuda device, or a skip that says why there is
// none) and the slow kernel they keep the stream busy with.
#pragma once

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>

// Long enough per element to keep the stream busy while the host goes on: v -> v/2 + 1 converges to 2 exactly.
inline const tack::Kernel& spin() {
  static const tack::Kernel k = tack::kernel("spin", [](tack::lang::Array y, tack::lang::Scalar iterations) {
    using namespace tack::lang;
    parallel_for(y.size(), [&](Index i) {
      Var v = y[i];
      for_range(0, iterations, [&](Index) { v = v * 0.5f + 1.0f; });
      y[i] = v;
    });
  });
  return k;
}

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto names = tack::backend_names();
    if (std::find(names.begin(), names.end(), "cuda") == names.end()) GTEST_SKIP() << "this Tack has no cuda backend";
    try {
      dev_ = tack::device("cuda");
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "no CUDA device: " << e.what();
    }
  }
  tack::Device dev_;
};
