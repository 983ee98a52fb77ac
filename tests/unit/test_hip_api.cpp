// The hip backend's parts that need no device: the launch limit, the runtime
// version rules (the ROCm 7.0/7.1 expected failure), the disk cache's target
// key, and the check that refuses a code object manager linked against a
// shared LLVM (drivers/hip_api.cpp says why).
#include "backends/hip/hip_kernel.hpp"
#include "drivers/hip_api.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {
namespace hp = tack::drivers::hip;
using tack::runtime::CacheKey;
using tack::runtime::key_text;
using tack::backends::hip::cache_key;
using tack::backends::hip::launch_limit;
using tack::backends::hip::launch_work_items;

TEST(HipLaunchLimit, GridMaximumTimes256CappedBelow2To32) {
  EXPECT_EQ(launch_limit(1024), 1024u * 256);
  EXPECT_EQ(launch_limit(65535), 65535u * 256);
  // Current AMD GPUs report gridDim.x up to 2^31 - 1: the 32-bit work-item count of the dispatch packet caps it.
  EXPECT_EQ(launch_limit(2147483647), (std::uint64_t{1} << 32) - 256);
  EXPECT_EQ(launch_limit((std::int64_t{1} << 24) - 1), (std::uint64_t{1} << 32) - 256);
  EXPECT_EQ(launch_limit(std::int64_t{1} << 24), (std::uint64_t{1} << 32) - 256);
  EXPECT_EQ(launch_limit(0), 0u);
}

TEST(HipLaunchLimit, WorkItemsAreWholeBlocks) {
  EXPECT_EQ(launch_work_items(1, false), 256u);
  EXPECT_EQ(launch_work_items(256, false), 256u);
  EXPECT_EQ(launch_work_items(257, false), 512u);
  EXPECT_EQ(launch_work_items(3, true), 768u);  // groups of 256
  const std::uint64_t limit = launch_limit(2147483647);
  EXPECT_LE(launch_work_items((std::int64_t{1} << 32) - 256, false), limit);
  EXPECT_GT(launch_work_items((std::int64_t{1} << 32) - 255, false), limit);
  EXPECT_GT(launch_work_items(std::int64_t{1} << 24, true), limit);
}

TEST(HipRuntimeVersion, SplitsHipVersionNumbers) {
  EXPECT_EQ(hp::split_runtime_version(50221153).major, 5);  // ROCm 5.2 (this build machine)
  EXPECT_EQ(hp::split_runtime_version(50221153).minor, 2);
  EXPECT_EQ(hp::split_runtime_version(70151831).major, 7);
  EXPECT_EQ(hp::split_runtime_version(70151831).minor, 1);
  EXPECT_EQ(hp::split_runtime_version(60443483).minor, 4);
}

TEST(HipRuntimeVersion, TheIntegerExpressionMiscompileIsExpectedOnRocm70And71Only) {
  EXPECT_TRUE(hp::has_integer_expression_miscompile({7, 0}));
  EXPECT_TRUE(hp::has_integer_expression_miscompile({7, 1}));
  EXPECT_FALSE(hp::has_integer_expression_miscompile({7, 2}));
  EXPECT_FALSE(hp::has_integer_expression_miscompile({6, 4}));
  EXPECT_FALSE(hp::has_integer_expression_miscompile({5, 2}));
}

TEST(HipDiskCache, TheKeyNamesArchitectureRuntimeCompilerAndOptions) {
  EXPECT_FALSE(cache_key("", 60443483, 6, 4, "IR", true)) << "no architecture name: nothing is cached";
  const std::optional<CacheKey> a = cache_key("gfx90a:sramecc+:xnack-", 70151831, 7, 1, "IR", true);
  ASSERT_TRUE(a);
  EXPECT_NE(a->target.find("gfx90a:sramecc+:xnack-"), std::string::npos) << a->target;
  EXPECT_NE(a->options.find("-ffp-contract=on"), std::string::npos) << a->options;
  EXPECT_EQ(a->toolchain_version, "7.1");
  EXPECT_EQ(a->code, "IR");
  const std::string text = key_text(*a);
  EXPECT_NE(key_text(*cache_key("gfx942:sramecc+:xnack-", 70151831, 7, 1, "IR", true)), text);
  EXPECT_NE(key_text(*cache_key("gfx90a:sramecc+:xnack-", 70251831, 7, 1, "IR", true)), text);
  EXPECT_NE(key_text(*cache_key("gfx90a:sramecc+:xnack-", 70151831, 7, 2, "IR", true)), text);
  EXPECT_NE(key_text(*cache_key("gfx90a:sramecc+:xnack-", 70151831, 7, 1, "IR2", true)), text);
  // A kernel made with fp_contract off is compiled with -ffp-contract=off, and its key says so.
  const std::optional<CacheKey> off = cache_key("gfx90a:sramecc+:xnack-", 70151831, 7, 1, "IR", false);
  EXPECT_NE(off->options.find("-ffp-contract=off"), std::string::npos) << off->options;
  EXPECT_NE(key_text(*off), text);
}

TEST(HipSharedLlvm, ACodeObjectManagerOnASharedLibLlvmIsRecognized) {
  EXPECT_TRUE(hp::links_shared_llvm({"libz.so.1", "libLLVM-15.so.1", "libc.so.6"}));  // Debian's ROCm 5.2
  EXPECT_TRUE(hp::links_shared_llvm({"libclang-cpp.so.17"}));
  EXPECT_FALSE(hp::links_shared_llvm({"libz.so.1", "libstdc++.so.6", "libc.so.6"}));  // AMD's: LLVM inside
}

TEST(HipSharedLlvm, ElfNeededReadsDynamicEntries) {
  // This executable links libtack.so and libc.
  const std::vector<std::string> needed = hp::elf_needed("/proc/self/exe");
  bool tack = false, libc = false;
  for (const std::string& n : needed) {
    tack |= n.rfind("libtack.so", 0) == 0;
    libc |= n.rfind("libc.so", 0) == 0;
  }
  EXPECT_TRUE(tack && libc) << needed.size() << " entries";
  EXPECT_TRUE(hp::elf_needed("/no/such/file.so").empty());
  EXPECT_TRUE(hp::elf_needed(TACK_SOURCE_DIR "/CMakeLists.txt").empty()) << "not ELF";
}

}  // namespace
