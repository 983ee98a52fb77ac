// Choosing a device by ordinal (cuda, hip): option "device" as an integer, or
// the backend's own default, refused by name when the driver has no such
// device.
#pragma once

#include <tack/device.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tack::runtime {

// Option "device" of `options`, or nullopt where it is absent; InvalidArgument "<backend>: option 'device' must
// be an integer device ordinal" where it is not an integer.
std::optional<std::int64_t> device_option(const DeviceOptions& options, const std::string& backend);

// `ordinal` as an int where it names one of the `count` devices; else InvalidArgument naming where it came from
// ("option 'device'") and what reported the count ("the driver").
int checked_ordinal(const std::string& backend, std::int64_t ordinal, const std::string& from, const char* reporter,
                    int count);

}  // namespace tack::runtime
