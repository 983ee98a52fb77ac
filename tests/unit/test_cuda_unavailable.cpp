// tack::device("cuda") without a usable driver: TACK_CUDA_LIBRARY names the
// toolkit's stub libcuda.so (TACK_EXPECT=stub) or a file that does not exist
// (TACK_EXPECT=missing); ctest runs this executable once for each, since the
// driver is loaded once per process. Both must be BackendUnavailable (so the
// conformance suite skips cuda) with a reason that names the cause, and the
// other backends must keep working.
#include <tack/tack.hpp>

#include "support/backend_refusal.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using tack_test::expected_case;

std::string reason_of_refusal() {
  std::string why = tack_test::refusal_of("cuda");
  if (why.empty()) ADD_FAILURE() << "tack::device(\"cuda\") did not throw BackendUnavailable";
  return why;
}

TEST(CudaUnavailable, RefusedWithTheReason) {
  const std::string expect = expected_case();
  if (expect.empty()) GTEST_SKIP() << "run through ctest (TACK_EXPECT=stub or missing, TACK_CUDA_LIBRARY set)";
  const std::string library = std::getenv("TACK_CUDA_LIBRARY") ? std::getenv("TACK_CUDA_LIBRARY") : "";
  const std::string why = reason_of_refusal();
  EXPECT_NE(why.find("cuda"), std::string::npos) << why;
  if (expect == "stub") {
    // The reason itself (cuInit's CUDA_ERROR_STUB_LIBRARY), not "stub" in the library's path.
    EXPECT_NE(why.find("is the toolkit's stub library, not a driver"), std::string::npos) << why;
  } else {
    EXPECT_NE(why.find("could not be loaded"), std::string::npos) << why;
    EXPECT_NE(why.find(library), std::string::npos) << "the reason should name the file tried: " << why;
  }
  // The same refusal every time (the load happens once), and never another error type.
  EXPECT_EQ(reason_of_refusal(), why);
}

TEST(CudaUnavailable, OtherBackendsKeepWorking) {
  if (expected_case().empty()) GTEST_SKIP() << "run through ctest";
  (void)reason_of_refusal();
  tack::Device interp = tack::device("interp");
  EXPECT_EQ(interp.from_host(std::vector<float>{1, 2, 3}).to_host<float>(), (std::vector<float>{1, 2, 3}));
}

}  // namespace
