// The edge where driver failure records become Tack errors
// (runtime/diagnostics/driver_errors.hpp): the messages name the backend, the call and the
// driver's text exactly as before the driver tables stopped throwing, and a
// table that cannot be loaded is BackendUnavailable with its reason.
#include <gtest/gtest.h>

#include "runtime/diagnostics/driver_errors.hpp"

#include <tack/error.hpp>

#include <string>

namespace {

using tack::drivers::Failure;

template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

TEST(DriverErrors, AFailedCallIsABackendErrorNamingTheCall) {
  const Failure f{"cuModuleGetFunction", 500, "CUDA_ERROR_NOT_FOUND (named symbol not found)"};
  EXPECT_EQ(message_of<tack::BackendError>([&] { tack::runtime::raise_failure(f, "cuda: "); }),
            "cuda: cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol not found)");
  EXPECT_NO_THROW(tack::runtime::raise_if_failed(std::nullopt, "cuda: "));
  EXPECT_EQ(message_of<tack::BackendError>([&] {
              tack::runtime::raise_if_failed(Failure{"clFinish", -2, "CL_DEVICE_NOT_AVAILABLE (-2)"}, "");
            }),
            "clFinish failed: CL_DEVICE_NOT_AVAILABLE (-2)");
}

struct FakeApi {};
const FakeApi* missing(std::string* why) {
  if (why) *why = "the FAKE driver could not be loaded (libfake.so: no such file)";
  return nullptr;
}
const FakeApi* present(std::string*) {
  static const FakeApi api;
  return &api;
}

TEST(DriverErrors, AnUnloadableTableIsBackendUnavailableWithItsReason) {
  EXPECT_EQ(message_of<tack::BackendUnavailable>([] { tack::runtime::usable(&missing, "fake: "); }),
            "fake: the FAKE driver could not be loaded (libfake.so: no such file)");
  EXPECT_EQ(&tack::runtime::usable(&present, "fake: "), present(nullptr));
}

TEST(DriverErrors, RuntimeCompilerOutcomes) {
  tack::drivers::RtcApi api;
  api.compiler = "NVRTC";
  tack::drivers::RtcOutput rejected;
  rejected.failure = Failure{"CompileProgram", 6, "NVRTC_ERROR_COMPILATION"};
  rejected.rejected = true;
  rejected.log = "k.cu(1): error: x is undefined";
  EXPECT_EQ(
      message_of<tack::CompileError>([&] { tack::runtime::compiled_or_raise(rejected, api, "k.cu", "SOURCE"); }),
      "NVRTC could not compile k.cu: NVRTC_ERROR_COMPILATION\nk.cu(1): error: x is undefined\n--- source ---\nSOURCE");
  tack::drivers::RtcOutput failed;
  failed.failure = Failure{"GetCodeSize", 7, "NVRTC_ERROR_INVALID_INPUT"};
  EXPECT_EQ(message_of<tack::BackendError>([&] { tack::runtime::compiled_or_raise(failed, api, "k.cu", "SOURCE"); }),
            "NVRTC: GetCodeSize failed: NVRTC_ERROR_INVALID_INPUT (7)");
  tack::drivers::RtcOutput ok;
  ok.code = {'p', 't', 'x'};
  EXPECT_EQ(tack::runtime::compiled_or_raise(ok, api, "k.cu", "SOURCE"), (std::vector<char>{'p', 't', 'x'}));
}

}  // namespace
