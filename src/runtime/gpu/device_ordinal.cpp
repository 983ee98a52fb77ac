// Device choice by ordinal and its refusals, shared by cuda and hip.
#include "runtime/gpu/device_ordinal.hpp"

#include <tack/error.hpp>

#include <variant>

namespace tack::runtime {

std::optional<std::int64_t> device_option(const DeviceOptions& options, const std::string& backend) {
  const auto it = options.find("device");
  if (it == options.end()) return std::nullopt;
  if (!std::holds_alternative<std::int64_t>(it->second))
    throw InvalidArgument(backend + ": option 'device' must be an integer device ordinal");
  return std::get<std::int64_t>(it->second);
}

int checked_ordinal(const std::string& backend, std::int64_t ordinal, const std::string& from, const char* reporter,
                    int count) {
  if (ordinal >= 0 && ordinal < count) return static_cast<int>(ordinal);
  throw InvalidArgument(backend + ": device " + std::to_string(ordinal) + " (" + from + ") does not exist; " +
                        reporter + " has " + std::to_string(count) + " device" + (count == 1 ? "" : "s") + " (0 to " +
                        std::to_string(count - 1) + ")");
}

}  // namespace tack::runtime
