// The fixture of the GPU tests: the cuda device, or a skip that says why there is none.
#pragma once

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>

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
