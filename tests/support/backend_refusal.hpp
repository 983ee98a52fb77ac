// What the *_unavailable test executables share: the refusal of a backend that
// cannot run here, and the case ctest chose for this run (TACK_EXPECT). Each
// executable runs once per case, since a driver is loaded once per process.
#pragma once

#include <tack/tack.hpp>

#include <cstdlib>
#include <string>

namespace tack_test {

// TACK_EXPECT, or "" when run by hand.
inline std::string expected_case() {
  const char* e = std::getenv("TACK_EXPECT");
  return e ? e : "";
}

// What tack::device(backend)'s BackendUnavailable says; "" when the device opened.
// Any other exception propagates (and fails the test).
inline std::string refusal_of(const char* backend) {
  try {
    tack::device(backend);
  } catch (const tack::BackendUnavailable& e) {
    return e.what();
  }
  return "";
}

}  // namespace tack_test
