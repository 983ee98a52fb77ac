// What the fake-driver test executables share: the check that a driver table
// was resolved from the fake and not from a real driver found first, and a
// main() that points the backend's variable at the fake when run by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <string>

#include <dlfcn.h>

namespace tack_test {

// Every function pointer of `api` (the members before its `library` string)
// is set, and lies in a file whose name contains `fake_name`.
template <class Api>
void expect_every_entry_from_the_fake(const Api& api, const char* fake_name) {
  const auto* table = reinterpret_cast<void* const*>(&api);
  const auto table_bytes =
      static_cast<std::size_t>(reinterpret_cast<const char*>(&api.library) - reinterpret_cast<const char*>(&api));
  ASSERT_EQ(table_bytes % sizeof(void*), 0u);
  const std::size_t entries = table_bytes / sizeof(void*);
  ASSERT_GT(entries, 10u) << "the table's function pointers come before its library string";
  for (std::size_t i = 0; i < entries; ++i) {
    Dl_info info{};
    ASSERT_NE(table[i], nullptr) << "entry " << i;
    ASSERT_TRUE(dladdr(table[i], &info)) << "entry " << i;
    EXPECT_NE(std::string(info.dli_fname).find(fake_name), std::string::npos)
        << "entry " << i << " (" << (info.dli_sname ? info.dli_sname : "?") << ") resolved from " << info.dli_fname;
  }
}

// A test executable's main(): `variable` names the fake unless the caller (ctest) already set it.
inline int run_tests_over_the_fake(int argc, char** argv, const char* variable, const char* fake) {
  ::setenv(variable, fake, 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

}  // namespace tack_test
