// tack::library_info and tack::about: what python -m tack reports, read from the build, the environment and
// what each device learnt when it was made.
#include "support/scoped_env.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

namespace {

std::map<std::string, std::string> about_map(const tack::Device& d) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : tack::about(d)) EXPECT_TRUE(out.emplace(name, value).second) << "twice: " << name;
  return out;
}

TEST(About, LibraryInfoNamesTheVersionsAndTheCacheAsTheCacheReadsThem) {
  {
    tack_test::ScopedEnv dir("TACK_CACHE_DIR", "/tmp/tack-about-test/./cache/../kept");
    tack_test::ScopedEnv on("TACK_CACHE", nullptr);
    tack_test::ScopedEnv cap("TACK_CACHE_MAX_BYTES", "512M");
    const tack::LibraryInfo info = tack::library_info();
    EXPECT_TRUE(std::regex_match(info.version, std::regex(R"(\d+\.\d+\.\d+)"))) << info.version;
#ifdef TACK_HAVE_LLVM
    EXPECT_TRUE(info.llvm_version.starts_with("19.")) << info.llvm_version;
#else
    EXPECT_EQ(info.llvm_version, "");
#endif
    EXPECT_TRUE(info.disk_cache);
    EXPECT_EQ(info.cache_directory, "/tmp/tack-about-test/kept");  // absolute and normal, as the cache uses it
    EXPECT_EQ(info.cache_max_bytes, 512ull << 20);
  }
  tack_test::ScopedEnv off("TACK_CACHE", "0");
  EXPECT_FALSE(tack::library_info().disk_cache);
}

TEST(About, HostDevicesSayWhatTheyAre) {
  const auto interp = about_map(tack::device("interp", {{"lanes", std::int64_t{4}}}));
  EXPECT_NE(interp.at("device"), "");
  EXPECT_EQ(interp.at("lanes"), "4");
#ifdef TACK_HAVE_LLVM
  const auto cpu = about_map(tack::device("cpu", {{"num_threads", std::int64_t{3}}}));
  EXPECT_EQ(cpu.at("threads"), "3");
  EXPECT_TRUE(cpu.at("compiler").starts_with("LLVM 19.")) << cpu.at("compiler");
  EXPECT_NE(cpu.at("target").find("x86_64"), std::string::npos) << cpu.at("target");
  EXPECT_TRUE(cpu.contains("device"));  // the model name: empty only where /proc/cpuinfo has none
#endif
}

TEST(About, OpenCLNamesItsDeviceAndDriver) {
  tack::Device d;
  try {
    d = tack::device("opencl");
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << e.what();
  }
  const auto opencl = about_map(d);
  for (const char* name : {"device", "platform", "device version", "driver", "compiles"})
    EXPECT_NE(opencl.at(name), "") << name;
  // The display name carries the device's name; both come from the same query.
  EXPECT_NE(d.capabilities().display_name.find(opencl.at("device")), std::string::npos);
}

TEST(About, AnEmptyDeviceIsRefused) { EXPECT_THROW(tack::about(tack::Device{}), tack::InvalidArgument); }

}  // namespace
