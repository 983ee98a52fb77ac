// Every test run verifies the IR after each optimization pass (TACK_VERIFY=1),
// also in release builds, so a pass that breaks an invariant fails a test.
#include <cstdlib>

namespace {
const int verify_on = [] { return ::setenv("TACK_VERIFY", "1", 0); }();
}  // namespace
