// tack::device("hip") where HIP cannot run: TACK_HIP_LIBRARY names a file that
// does not exist (TACK_EXPECT=missing), a bad TACK_HIP_ALLOCATOR
// (TACK_EXPECT=bad_allocator), or the machine's own ROCm (TACK_EXPECT=machine:
// here Debian's ROCm 5.2 with no GPU, refused before anything loads the code
// object manager). ctest runs this executable once for each, since the runtime
// is loaded once per process. A refusal must be BackendUnavailable (so the
// conformance suite skips hip) with the reason, and must never abort: the
// machine case makes the opencl device first (PoCL, whose libclang-cpp clashes
// with Debian's comgr; drivers/hip_api.cpp) and runs a kernel on it after.
#include <tack/tack.hpp>

#include "support/backend_refusal.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using tack_test::expected_case;

std::string reason_of_refusal() {
  std::string why = tack_test::refusal_of("hip");
  if (why.empty()) ADD_FAILURE() << "tack::device(\"hip\") did not throw BackendUnavailable";
  return why;
}

TEST(HipUnavailable, RefusedWithTheReason) {
  const std::string expect = expected_case();
  if (expect.empty() || expect == "bad_allocator") GTEST_SKIP() << "run through ctest (TACK_EXPECT=missing or machine)";
  bool opencl = false;
  if (expect == "machine") {
    try {
      tack::device("opencl");
      opencl = true;
    } catch (const tack::BackendUnavailable&) {
    }
  }
  const std::string why = reason_of_refusal();
  EXPECT_EQ(why.rfind("hip: ", 0), 0u) << why;
  if (expect == "missing") {
    const std::string library = std::getenv("TACK_HIP_LIBRARY") ? std::getenv("TACK_HIP_LIBRARY") : "";
    EXPECT_NE(why.find("could not be loaded"), std::string::npos) << why;
    EXPECT_NE(why.find(library), std::string::npos) << "the reason should name the file tried: " << why;
  } else {
    // Whichever applies here: no ROCm, a comgr on a shared LLVM, or no device.
    const bool known = why.find("could not be loaded") != std::string::npos ||
                       why.find("code object manager") != std::string::npos ||
                       why.find("no device") != std::string::npos;
    EXPECT_TRUE(known) << why;
  }
  EXPECT_EQ(reason_of_refusal(), why) << "the same refusal every time (the runtime loads once)";
  if (opencl) {
    tack::Device cl = tack::device("opencl");
    EXPECT_EQ(cl.from_host(std::vector<float>{1, 2, 3}).to_host<float>(), (std::vector<float>{1, 2, 3}));
  }
}

TEST(HipUnavailable, ABadAllocatorIsAnInvalidArgumentBeforeAnythingLoads) {
  if (expected_case() != "bad_allocator") GTEST_SKIP() << "run through ctest (TACK_EXPECT=bad_allocator)";
  try {
    tack::device("hip");
    FAIL() << "accepted TACK_HIP_ALLOCATOR=" << std::getenv("TACK_HIP_ALLOCATOR");
  } catch (const tack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("TACK_HIP_ALLOCATOR"), std::string::npos) << e.what();
  }
}

TEST(HipUnavailable, OtherBackendsKeepWorking) {
  if (expected_case().empty()) GTEST_SKIP() << "run through ctest";
  try {
    tack::device("hip");
  } catch (const tack::Error&) {
  }
  tack::Device interp = tack::device("interp");
  EXPECT_EQ(interp.from_host(std::vector<float>{1, 2, 3}).to_host<float>(), (std::vector<float>{1, 2, 3}));
}

}  // namespace
