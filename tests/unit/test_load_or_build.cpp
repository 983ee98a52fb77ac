// The one disk-cache flow every backend builds through (runtime/cache/load_or_build.hpp)
// and its typed key: each field of a key reaches the key text so two keys that
// differ anywhere never share an entry, and the flow compiles once, loads on
// the second build, recompiles past a refused or malformed entry, replaces an
// entry a load improved, and stays off the disk when the key cannot be named.
#include <gtest/gtest.h>

#include "runtime/cache/build_id.hpp"
#include "runtime/cache/load_or_build.hpp"

#include <unistd.h>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace fs = std::filesystem;
using tack::runtime::Built;
using tack::runtime::CacheKey;
using tack::runtime::DiskCache;
using tack::runtime::DiskCacheConfig;
using tack::runtime::key_text;
using tack::runtime::load_or_build;

namespace {

CacheKey base_key() { return {"tack-test-1", "nvrtc", "12.4", "sm_90", "--ftz=false", "kernel k(f32[]) { }"}; }

TEST(CacheKey, EachFieldReachesTheKeyText) {
  const std::string base = key_text(base_key());
  CacheKey k = base_key();
  for (std::string CacheKey::*field : {&CacheKey::format, &CacheKey::toolchain, &CacheKey::toolchain_version,
                                       &CacheKey::target, &CacheKey::options, &CacheKey::code}) {
    k = base_key();
    (k.*field) += "x";
    EXPECT_NE(key_text(k), base) << "a field changed but the key did not";
    k = base_key();
    (k.*field).clear();
    EXPECT_NE(key_text(k), base) << "an emptied field left the key as it was";
  }
  EXPECT_EQ(key_text(base_key()), base) << "the key text is a function of the fields";
}

TEST(CacheKey, NoFieldsTextPassesForAnothers) {
  // Concatenated, each pair would read alike; length-prefixed fields keep them apart.
  using Field = std::string CacheKey::*;
  struct Case {
    Field first, second;
    std::string joined, left, right;
  };
  const Case cases[] = {
      {&CacheKey::toolchain, &CacheKey::toolchain_version, "nvrtc\ntoolchain_version 4:12.4", "nvrtc", "12.4"},
      {&CacheKey::target, &CacheKey::options, "sm_90 --ftz=false", "sm_90", "--ftz=false"},
      {&CacheKey::options, &CacheKey::code, "-O3\nkernel", "-O3", "kernel"},
  };
  for (const Case& c : cases) {
    CacheKey a = base_key(), b = base_key();
    a.*c.first = c.joined;
    a.*c.second = "";
    b.*c.first = c.left;
    b.*c.second = c.right;
    EXPECT_NE(key_text(a), key_text(b)) << c.joined;
  }
}

TEST(CacheKey, TheLibraryBuildIsPartOfEveryKey) {
  EXPECT_NE(key_text(base_key()).find(tack::runtime::library_build_id()), std::string::npos);
}

// libtack's GNU build-id note in hex, or where the linker wrote none, libtack's file, size and time.
TEST(CacheKey, TheLibraryBuildIsItsBuildIdNoteOrItsFile) {
  const std::string& id = tack::runtime::library_build_id();
  if (id.rfind("build-id ", 0) == 0) {
    const std::string hex = id.substr(9);
    EXPECT_GE(hex.size(), 16u) << id;
    EXPECT_EQ(hex.size() % 2, 0u) << id;
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  } else {
    EXPECT_EQ(id.rfind("file ", 0), 0u) << id;
    EXPECT_NE(id.find("libtack"), std::string::npos) << id;
  }
}

class LoadOrBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tack_load_or_build_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    cache_ = std::make_unique<DiskCache>(DiskCacheConfig{true, dir_.string(), 0});
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One build through the flow: the loaded "artifact" is the payload itself.
  std::unique_ptr<std::string> build(const CacheKey& key, const std::string& artifact) {
    return load_or_build<std::unique_ptr<std::string>>(
        *cache_, [&] { return std::optional<CacheKey>(key); },
        [&](std::string_view payload, std::string* again) -> std::unique_ptr<std::string> {
          ++loads_;
          if (payload == "refuse") return nullptr;
          if (payload == "improve") *again = "improved";
          return std::make_unique<std::string>(payload);
        },
        [&](bool caching) {
          ++compiles_;
          caching_ = caching;
          return Built<std::unique_ptr<std::string>>{std::make_unique<std::string>(artifact), artifact};
        });
  }

  fs::path dir_;
  std::unique_ptr<DiskCache> cache_;
  int loads_ = 0, compiles_ = 0;
  bool caching_ = false;
};

TEST_F(LoadOrBuild, CompilesOnceAndLoadsOnTheSecondBuild) {
  EXPECT_EQ(*build(base_key(), "ptx"), "ptx");
  EXPECT_EQ(compiles_, 1);
  EXPECT_TRUE(caching_);
  EXPECT_EQ(*build(base_key(), "other"), "ptx") << "the second build loads what the first stored";
  EXPECT_EQ(compiles_, 1);
  EXPECT_EQ(loads_, 1);
}

TEST_F(LoadOrBuild, AnotherToolchainTargetOrOptionMisses) {
  build(base_key(), "for sm_90");
  for (std::string CacheKey::*field :
       {&CacheKey::toolchain_version, &CacheKey::target, &CacheKey::options, &CacheKey::format}) {
    CacheKey k = base_key();
    (k.*field) += "-other";
    const int before = compiles_;
    EXPECT_EQ(*build(k, "fresh"), "fresh") << "a key that differs must never get another key's binary";
    EXPECT_EQ(compiles_, before + 1);
  }
}

TEST_F(LoadOrBuild, ARefusedEntryIsCompiledAgainAndReplaced) {
  cache_->store(key_text(base_key()), "refuse");
  EXPECT_EQ(*build(base_key(), "good"), "good");
  EXPECT_EQ(loads_, 1);
  EXPECT_EQ(compiles_, 1);
  EXPECT_EQ(cache_->load(key_text(base_key())), std::optional<std::string>("good"));
}

TEST_F(LoadOrBuild, ALoadMayStoreABetterEntry) {
  cache_->store(key_text(base_key()), "improve");
  EXPECT_EQ(*build(base_key(), "unused"), "improve");
  EXPECT_EQ(compiles_, 0);
  EXPECT_EQ(cache_->load(key_text(base_key())), std::optional<std::string>("improved"));
}

TEST_F(LoadOrBuild, NoKeyOrNoCacheMeansNoDisk) {
  auto none = [] { return std::optional<CacheKey>(); };
  auto load = [&](std::string_view, std::string*) -> std::unique_ptr<std::string> {
    ADD_FAILURE() << "loaded without a key";
    return nullptr;
  };
  auto compile = [&](bool caching) {
    EXPECT_FALSE(caching);
    return Built<std::unique_ptr<std::string>>{std::make_unique<std::string>("x"), ""};
  };
  EXPECT_EQ(*load_or_build<std::unique_ptr<std::string>>(*cache_, none, load, compile), "x");
  EXPECT_FALSE(fs::exists(dir_)) << "nothing was stored";
  DiskCache off(DiskCacheConfig{false, dir_.string(), 0});
  bool asked = false;
  auto key = [&] {
    asked = true;
    return std::optional<CacheKey>(base_key());
  };
  EXPECT_EQ(*load_or_build<std::unique_ptr<std::string>>(off, key, load, compile), "x");
  EXPECT_FALSE(asked) << "a disabled cache does not make the key";
}

}  // namespace
