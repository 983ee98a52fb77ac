// A test run once per backend of the build (tack::backend_names()), so that a
// backend that cannot run here ends SKIPPED with the reason instead of the whole
// test passing on the backends that remain. Checks that need no device (what
// tack::inspect generates or refuses) come first in a test; then
// `TACK_NEED_DEVICE();` skips, naming why, where there is no device to launch on.
#pragma once

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <string>

namespace tack_test {

class PerBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      device_ = tack::device(backend());
    } catch (const tack::BackendUnavailable& e) {
      why_not_ = backend() + " cannot run here: " + e.what();
    }
  }
  const std::string& backend() const { return GetParam(); }
  bool has_device() const { return device_.has_value(); }
  const std::string& why_no_device() const { return why_not_; }
  tack::Device& dev() { return *device_; }

 private:
  std::optional<tack::Device> device_;
  std::string why_not_;
};

inline std::string backend_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace tack_test

// Skips the rest of a PerBackend test, with the reason, where its backend has no device here.
#define TACK_NEED_DEVICE() \
  if (!has_device()) GTEST_SKIP() << why_no_device()

// Declares the fixture Suite (a PerBackend) and runs its TEST_Ps on every backend of the build.
#define TACK_PER_BACKEND_SUITE(Suite)                                                     \
  class Suite : public ::tack_test::PerBackend {};                                        \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(::tack::backend_names()), \
                           ::tack_test::backend_test_name)
