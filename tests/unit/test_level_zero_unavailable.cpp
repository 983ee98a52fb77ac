// tack::device("level_zero") without a Level Zero loader: ctest names a file
// that does not exist in TACK_LEVEL_ZERO_LIBRARY, and by hand this machine's
// own (absent) libze_loader.so.1 is tried. Either way it must be
// BackendUnavailable, with a reason that names the cause, every time; the
// generated source stays inspectable and the other backends keep working.
#include <tack/tack.hpp>

#include "support/backend_refusal.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;

std::string reason_of_refusal() { return tack_test::refusal_of("level_zero"); }

TEST(LevelZeroUnavailable, RefusedWithTheReason) {
  const std::string why = reason_of_refusal();
  if (why.empty()) GTEST_SKIP() << "this machine has a Level Zero loader and device";
  EXPECT_NE(why.find("level_zero"), std::string::npos) << why;
  EXPECT_NE(why.find("could not be loaded"), std::string::npos) << why;
  if (const char* forced = std::getenv("TACK_LEVEL_ZERO_LIBRARY"); forced && *forced)
    EXPECT_NE(why.find(forced), std::string::npos) << "the reason should name the file tried: " << why;
  else
    EXPECT_NE(why.find("libze_loader"), std::string::npos) << why;
  // The same refusal every time (the loader is loaded once), and never another error type.
  EXPECT_EQ(reason_of_refusal(), why);
}

TEST(LevelZeroUnavailable, SourceStaysInspectable) {
  if (reason_of_refusal().empty()) GTEST_SKIP() << "this machine has a Level Zero loader and device";
  auto k = tack::kernel("l0_fill", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = 1.0f; }); });
  const std::string src = tack::inspect(k, "level_zero", tack::ArraySpec{}).source;
  // The index from group id, local size and local id: this driver's get_global_id(0) wraps at 2^32.
  EXPECT_NE(src.find("(long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0)"), std::string::npos)
      << src;
}

TEST(LevelZeroUnavailable, OtherBackendsKeepWorking) {
  (void)reason_of_refusal();
  tack::Device interp = tack::device("interp");
  EXPECT_EQ(interp.from_host(std::vector<float>{1, 2, 3}).to_host<float>(), (std::vector<float>{1, 2, 3}));
}

}  // namespace
