// The abort path for broken internal invariants.
#include "ir/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace tack::detail {
void internal_error(const char* file, int line, const char* what) {
  std::fprintf(stderr, "tack: internal error at %s:%d: %s\nThis is a bug in Tack; please report it.\n", file, line,
               what);
  std::abort();
}
}  // namespace tack::detail
