// A test fixture on the default OpenCL device (PoCL on the project's machines),
// skipped with the reason where no OpenCL runtime or device loads. A fixture
// that adds to SetUp calls this one first and returns when it skipped.
#pragma once

#include <tack/tack.hpp>

#include <gtest/gtest.h>

namespace tack_test {

class OpenCLDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      dev_ = tack::device("opencl");
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "opencl is unavailable here: " << e.what();
    }
  }
  tack::Device dev_;
};

}  // namespace tack_test
