// What a failed driver or compiler call reports: the call, its result code and
// the driver's own words for that code. The driver tables know nothing of
// Tack's errors (docs/errors.md: the C-ABI boundary uses result codes); each backend
// turns a Failure into a tack::BackendError at its edge (runtime/diagnostics/driver_errors.hpp).
#pragma once

#include <string>

namespace tack::drivers {

struct Failure {
  std::string call;    // the API call: "cuModuleGetFunction", "clBuildProgram", "GetCodeSize"
  long long code = 0;  // what it returned
  std::string text;    // the driver's name (and description) of that code
};

}  // namespace tack::drivers
