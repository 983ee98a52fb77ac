// Bad opencl device requests: a "device" option or TACK_OPENCL_DEVICE that
// names no device, or has the wrong type, is an InvalidArgument listing the
// devices. Skipped, with the reason, where OpenCL is unavailable.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

namespace {

class OpenCLDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      tack::device("opencl");
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "opencl is unavailable here: " << e.what();
    }
  }
};

TEST_F(OpenCLDevices, UnknownDeviceName) {
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", std::string("quantum-gpu-9000")}}), tack::InvalidArgument,
                    "device 'opencl'", "'quantum-gpu-9000' matches no OpenCL device", "the devices are:", "0: ");
}

TEST_F(OpenCLDevices, IndexOutOfRange) {
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", std::int64_t{4096}}}), tack::InvalidArgument,
                    "4096 is not a device index", "the devices are:");
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", std::int64_t{-1}}}), tack::InvalidArgument, "negative");
}

TEST_F(OpenCLDevices, WrongOptionType) {
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", true}}), tack::InvalidArgument,
                    "option 'device' must be an integer index or a name");
}

TEST_F(OpenCLDevices, MisspelledOption) {
  EXPECT_TACK_ERROR(tack::device("opencl", {{"devcie", std::int64_t{0}}}), tack::InvalidArgument,
                    "device 'opencl' has no option 'devcie'", "did you mean 'device'");
}

TEST_F(OpenCLDevices, IndexAsTextOutOfRange) {
  EXPECT_TACK_ERROR(tack::device("opencl", {{"device", std::string("77")}}), tack::InvalidArgument,
                    "option 'device' = 77 is not a device index");
}

}  // namespace
