// Internal invariants: a broken one is Tack's bug, so it aborts with a message.
#pragma once

namespace tack::detail {
[[noreturn]] void internal_error(const char* file, int line, const char* what);
}

#define TACK_CHECK(cond) ((cond) ? static_cast<void>(0) : ::tack::detail::internal_error(__FILE__, __LINE__, #cond))
#define TACK_UNREACHABLE(what) ::tack::detail::internal_error(__FILE__, __LINE__, what)
