// The one table of TACK_* variables (src/support/env.hpp): the docs list exactly
// its rows, the boolean parser takes the spellings documented, and no code reads
// a TACK_* variable around it.
#include "support/env.hpp"
#include "support/markdown_table.hpp"
#include "support/scoped_env.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using tack::support::EnvKind;
using tack::support::parse_env_flag;
using tack_test::ScopedEnv;

std::string strip_backticks(const std::string& cell) {
  return cell.size() >= 2 && cell.front() == '`' && cell.back() == '`' ? cell.substr(1, cell.size() - 2) : cell;
}

TEST(Env, DocsTableListsExactlyTheCodeTable) {
  const std::string path = std::string(TACK_SOURCE_DIR) + "/docs/environment.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " not found";
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("| `TACK_", 0) == 0) rows.push_back(tack_test::markdown_cells(line));

  const auto table = tack::support::env_variables();
  ASSERT_EQ(rows.size(), table.size()) << "docs/environment.md and src/support/env.hpp list different variables";
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& row = rows[i];
    const auto& v = table[i];
    ASSERT_EQ(row.size(), 5u) << v.name;
    EXPECT_EQ(strip_backticks(row[0]), v.name) << "row " << i << " (both are sorted by name)";
    EXPECT_EQ(row[1], v.kind == EnvKind::Flag ? "boolean" : "value") << v.name;
    EXPECT_EQ(row[2], v.fallback) << v.name;
    EXPECT_EQ(row[3], v.reader) << v.name;
  }
}

TEST(Env, FlagSpellings) {
  for (bool fallback : {false, true}) {
    EXPECT_EQ(parse_env_flag(nullptr, fallback), fallback);
    EXPECT_EQ(parse_env_flag("", fallback), fallback);
    for (const char* off : {"0", "false", "FALSE", "False", "no", "No", "off", "OFF", "oFf"})
      EXPECT_FALSE(parse_env_flag(off, fallback)) << off;
    for (const char* on : {"1", "true", "TRUE", "yes", "on", "On", "2", "enabled", " 0", "0 ", "nope"})
      EXPECT_TRUE(parse_env_flag(on, fallback)) << on;
  }
}

// The guard tests that set TACK_* variables use (errors/print.cpp, errors/devices.cpp,
// conformance/print.cpp): an ASSERT that fails between the set and the end of the
// scope still puts back the value the variable had before, so the next test of a
// whole suite run in one process (scripts/asan.sh) sees the environment it started with.
TEST(Env, ScopedEnvRestoresThePreviousValueWhenAnAssertFails) {
  ScopedEnv outer("TACK_PRINT_LINES", "17");  // the value "before"
  EXPECT_FATAL_FAILURE(
      {
        ScopedEnv inner("TACK_PRINT_LINES", "lots");
        ASSERT_TRUE(false) << "an assertion failing inside the scope";
      },
      "an assertion failing inside the scope");
  ASSERT_NE(std::getenv("TACK_PRINT_LINES"), nullptr) << "unset instead of restored";
  EXPECT_STREQ(std::getenv("TACK_PRINT_LINES"), "17");
  EXPECT_FATAL_FAILURE(
      {
        ScopedEnv inner("TACK_PRINT_LINES", nullptr);
        ASSERT_TRUE(false) << "a failure with the variable unset";
      },
      "a failure with the variable unset");
  EXPECT_STREQ(std::getenv("TACK_PRINT_LINES"), "17");
}

TEST(Env, FlagsFallBackToTheirTableDefault) {
  {
    ScopedEnv cache("TACK_CACHE", nullptr);
    ScopedEnv dump("TACK_DUMP_MSL", nullptr);
    EXPECT_TRUE(tack::support::env_flag("TACK_CACHE"));
    EXPECT_FALSE(tack::support::env_flag("TACK_DUMP_MSL"));
  }
  {
    ScopedEnv cache("TACK_CACHE", "");
    ScopedEnv dump("TACK_DUMP_MSL", "");
    EXPECT_TRUE(tack::support::env_flag("TACK_CACHE"));
    EXPECT_FALSE(tack::support::env_flag("TACK_DUMP_MSL"));
  }
  {
    ScopedEnv cache("TACK_CACHE", "Off");
    ScopedEnv dump("TACK_DUMP_MSL", "yes");
    EXPECT_FALSE(tack::support::env_flag("TACK_CACHE"));
    EXPECT_TRUE(tack::support::env_flag("TACK_DUMP_MSL"));
  }
}

TEST(Env, TextIsNulloptWhenUnsetOrEmpty) {
  {
    ScopedEnv log("TACK_LOG", nullptr);
    EXPECT_EQ(tack::support::env_text("TACK_LOG"), std::nullopt);
  }
  {
    ScopedEnv log("TACK_LOG", "");
    EXPECT_EQ(tack::support::env_text("TACK_LOG"), std::nullopt);
  }
  ScopedEnv log("TACK_LOG", " compile");
  EXPECT_EQ(tack::support::env_text("TACK_LOG"), " compile");
}

// A reader that calls getenv itself escapes the table, the docs test and the one parser.
TEST(Env, NoCodeReadsATackVariableAroundTheTable) {
  const fs::path root(TACK_SOURCE_DIR);
  const fs::path support = root / "src" / "support";
  const std::regex direct(R"(getenv\s*\(\s*"TACK_)");
  const std::regex python(R"((environ|getenv)[^\n]*["']TACK_)");
  int scanned = 0;
  for (const char* folder : {"src", "python/src", "python/tack"}) {
    if (!fs::exists(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      const fs::path& p = entry.path();
      if (p.parent_path() == support) continue;
      const std::string ext = p.extension().string();
      const bool py = ext == ".py";
      if (!py && ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".mm" && ext != ".c") continue;
      std::ifstream in(p);
      std::stringstream text;
      text << in.rdbuf();
      ++scanned;
      EXPECT_FALSE(std::regex_search(text.str(), py ? python : direct))
          << fs::relative(p, root).string()
          << " reads a TACK_* variable itself: read it with tack::support::env_flag or env_text "
             "(src/support/env.hpp), adding it to that table and to docs/environment.md";
    }
  }
  EXPECT_GT(scanned, 100);
}

}  // namespace
