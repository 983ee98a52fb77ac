// Turning driver failure records into Tack errors, with the messages docs/errors.md shows.
#include "runtime/diagnostics/driver_errors.hpp"

#include <tack/error.hpp>

namespace tack::runtime {

void raise_unavailable(std::string_view prefix, const std::string& why) {
  throw BackendUnavailable(std::string(prefix) + why);
}

void raise_failure(const drivers::Failure& failure, std::string_view prefix) {
  throw BackendError(std::string(prefix) + failure.call + " failed: " + failure.text);
}

std::vector<char> compiled_or_raise(drivers::RtcOutput output, const drivers::RtcApi& api, const std::string& name,
                                    const std::string& source) {
  if (output.rejected)
    throw CompileError(api.compiler + " could not compile " + name + ": " + output.failure->text + "\n" + output.log +
                       "\n--- source ---\n" + source);
  if (drivers::Failure* f = output.failure ? &*output.failure : nullptr)
    raise_failure({f->call, f->code, f->text + " (" + std::to_string(f->code) + ")"}, api.compiler + ": ");
  return std::move(output.code);
}

}  // namespace tack::runtime
