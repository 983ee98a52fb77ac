// Warnings: something went wrong that Tack worked around (a corrupt cache file,
// an unwritable cache directory). Printed as "tack: warning: ..." on stderr, or
// given to a handler (tests capture them).
#pragma once

#include <functional>
#include <string>

namespace tack::runtime {

// Reports `message` (no prefix, no trailing newline): to the handler if one is
// set, else as one line "tack: warning: <message>" on stderr. Thread-safe;
// never throws.
void warn(const std::string& message) noexcept;

// Sends every later warning to `handler` instead of stderr; nullptr restores
// stderr. The handler may be called from any thread, one call at a time (under
// a lock: it must not call warn() or set_warning_handler() itself).
void set_warning_handler(std::function<void(const std::string&)> handler);

}  // namespace tack::runtime
