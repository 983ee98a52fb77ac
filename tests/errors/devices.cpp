// Bad device requests: unknown names and misspelled options are refused before
// any backend is constructed, with a suggestion.
#include "errors/error_helpers.hpp"
#include "support/scoped_env.hpp"

#include <tack/tack.hpp>

#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

namespace {

TEST(Devices, UnknownName) {
  EXPECT_TACK_ERROR(tack::device("intrep"), tack::InvalidArgument, "unknown device 'intrep'", "did you mean 'interp'",
                    "the devices are: ", "interp");
}

// Off Apple the table still knows metal: asking for it is BackendUnavailable with the reason, as for a backend
// whose driver is absent, not an unknown name.
TEST(Devices, MetalOffApplePlatformsIsUnavailableWithTheReason) {
#ifdef __APPLE__
  GTEST_SKIP() << "this is an Apple platform: metal is built here";
#else
  EXPECT_TACK_ERROR(tack::device("metal"), tack::BackendUnavailable, "metal: the Metal backend is not in this build",
                    "Apple platforms only");
#endif
}

TEST(Devices, UnknownNameFromEnvironment) {
  tack_test::ScopedEnv env("TACK_DEVICE", "gpu9");  // restored however the test ends
  EXPECT_TACK_ERROR(tack::device(), tack::InvalidArgument, "unknown device 'gpu9' from TACK_DEVICE");
}

// The documented rule (docs/language.md, "Devices"): with no name, TACK_DEVICE
// if set and not empty, else "cpu", or "interp" in a build without LLVM.
TEST(Devices, DefaultIsTackDeviceElseTheDocumentedDefault) {
#ifdef TACK_HAVE_LLVM
  const std::string documented = "cpu";
#else
  const std::string documented = "interp";
#endif
  {
    tack_test::ScopedEnv env("TACK_DEVICE", "interp");
    EXPECT_EQ(tack::device().name(), "interp") << "TACK_DEVICE=interp";
  }
  {
    tack_test::ScopedEnv env("TACK_DEVICE", "");
    EXPECT_EQ(tack::device().name(), documented) << "TACK_DEVICE set but empty";
  }
  tack_test::ScopedEnv env("TACK_DEVICE", nullptr);
  EXPECT_EQ(tack::device().name(), documented) << "TACK_DEVICE unset";
}

TEST(Devices, MisspelledOption) {
  EXPECT_TACK_ERROR(tack::device("interp", {{"lane", std::int64_t{4}}}), tack::InvalidArgument,
                    "device 'interp' has no option 'lane'", "did you mean 'lanes'");
}

TEST(Devices, SameNameGivesTheSameDevice) {
  EXPECT_TRUE(tack::device("interp") == tack::device("interp"));
  EXPECT_TRUE(tack::device() == tack::device(tack::device().name()));
}

TEST(Devices, CapabilitiesAreDerivedConsistently) {
  const tack::Capabilities& c = tack::device("interp").capabilities();
  EXPECT_EQ(c.name, "interp");
  EXPECT_EQ(c.supported_dtypes.size(), 11u);  // bool and the ten numeric dtypes
  EXPECT_TRUE(c.supports(tack::DType::Bool));
  EXPECT_TRUE(c.supports_f64);
  EXPECT_TRUE(c.supports_workgroups);
  // Every numeric dtype has atomics on the interpreter; bool arrays have none (infer_types refuses them).
  EXPECT_EQ(c.supported_atomic_dtypes,
            std::vector<tack::DType>(std::begin(tack::kNumericDTypes), std::end(tack::kNumericDTypes)));
}

TEST(Devices, AMemorySpaceTheDeviceDoesNotListIsRefused) {
  EXPECT_TACK_ERROR(tack::device("cpu").zeros(tack::DType::F32, {4}, "cuda_pinned"), tack::InvalidArgument,
                    "zeros: the cpu device has no memory space 'cuda_pinned' (it lists none)");
  EXPECT_TACK_ERROR(tack::device("interp").empty(tack::DType::F32, {4}, "managed"), tack::InvalidArgument,
                    "empty: the interp device has no memory space 'managed' (it lists none)");
}

}  // namespace
