// support::loaded_file_of names the file a loaded object came from: libtack for
// its own code, the test program for its own, nothing for an address no object
// holds, and the same answer dladdr gives, which it replaces.
#include "support/loaded_file.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

int a_function_of_this_program() { return 7; }

TEST(LoadedFile, NamesLibtackForItsCode) {
  const void* inside = reinterpret_cast<const void*>(&tack::dtype_name);
  const std::string file = tack::support::loaded_file_of(inside);
  ASSERT_FALSE(file.empty());
  Dl_info info{};
  ASSERT_NE(dladdr(inside, &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  EXPECT_EQ(file, info.dli_fname);
  EXPECT_NE(fs::path(file).filename().string().find("libtack"), std::string::npos) << file;
}

TEST(LoadedFile, NamesTheProgramByItsExecutable) {
  const std::string file = tack::support::loaded_file_of(reinterpret_cast<const void*>(&a_function_of_this_program));
  ASSERT_FALSE(file.empty());
  EXPECT_TRUE(fs::equivalent(file, fs::read_symlink("/proc/self/exe"))) << file;
}

TEST(LoadedFile, EmptyForAnAddressNoObjectHolds) {
  int on_the_stack = 0;
  EXPECT_EQ(tack::support::loaded_file_of(&on_the_stack), "");
  EXPECT_EQ(tack::support::loaded_file_of(nullptr), "");
}

}  // namespace
