// support::visit_loaded_object finds the loaded object holding an address, and
// loaded_file_of names its file: libtack for its own code, the test program for
// its own, nothing for an address no object holds, and the same answer dladdr
// gives, which it replaces.
#include "support/loaded_file.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
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
  int calls = 0;
  EXPECT_FALSE(tack::support::visit_loaded_object(&on_the_stack, [&](const dl_phdr_info&) { ++calls; }));
  EXPECT_EQ(calls, 0);
}

TEST(LoadedFile, VisitsTheObjectWhoseSegmentsHoldTheAddress) {
  const void* inside = reinterpret_cast<const void*>(&tack::dtype_name);
  int calls = 0;
  bool holds = false;
  std::string name;
  EXPECT_TRUE(tack::support::visit_loaded_object(inside, [&](const dl_phdr_info& info) {
    ++calls;
    name = info.dlpi_name ? info.dlpi_name : "";
    const auto at = reinterpret_cast<std::uintptr_t>(inside);
    for (int i = 0; i < info.dlpi_phnum; ++i) {
      const auto& ph = info.dlpi_phdr[i];
      const std::uintptr_t begin = info.dlpi_addr + ph.p_vaddr;
      holds = holds || (ph.p_type == PT_LOAD && at >= begin && at < begin + ph.p_memsz);
    }
  }));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(holds) << "the visited object's segments hold the address";
  EXPECT_EQ(name, tack::support::loaded_file_of(inside));
}

}  // namespace
