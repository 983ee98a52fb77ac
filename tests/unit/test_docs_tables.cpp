// docs/backends.md's atomics row, checked against the code's capability tables,
// so the table users read cannot drift from what the backends accept.
#include "runtime/source_targets.hpp"
#include "support/markdown_table.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

// "all ten" or a space-separated dtype list, up to an optional "; note".
std::string listed(const std::string& cell) {
  std::string s = cell.substr(0, cell.find(';'));
  if (s == "all ten") return "i8 u8 i16 u16 i32 u32 i64 u64 f32 f64";
  return s;
}

std::string from_code(const std::vector<tack::DType>& dtypes) {
  std::string s;
  for (tack::DType t : dtypes) s += (s.empty() ? "" : " ") + std::string(tack::dtype_name(t));
  return s;
}

TEST(DocsTables, AtomicsRowMatchesTheCode) {
  std::ifstream in(std::string(TACK_SOURCE_DIR) + "/docs/backends.md");
  ASSERT_TRUE(in) << "docs/backends.md not found under " << TACK_SOURCE_DIR;
  std::string line, header, atomics;
  bool in_capabilities = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_capabilities = line == "## Capabilities";
    if (!in_capabilities) continue;
    if (line.rfind("| |", 0) == 0) header = line;
    if (line.rfind("| atomics |", 0) == 0) atomics = line;
  }
  ASSERT_FALSE(header.empty());
  ASSERT_FALSE(atomics.empty());
  std::vector<std::string> names = tack_test::markdown_cells(header), values = tack_test::markdown_cells(atomics);
  ASSERT_EQ(names.size(), values.size());
  int checked = 0;
  for (std::size_t i = 1; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (const tack::runtime::SourceTarget* t = tack::runtime::find_source_target(name)) {
      EXPECT_EQ(listed(values[i]), from_code(t->caps.supported_atomic_dtypes)) << name;
      ++checked;
    } else if (name == "cpu") {
      std::vector<std::string> devices = tack::backend_names();
      if (std::find(devices.begin(), devices.end(), "cpu") == devices.end()) continue;
      EXPECT_EQ(listed(values[i]), from_code(tack::device("cpu").capabilities().supported_atomic_dtypes)) << name;
      ++checked;
    } else {
      ADD_FAILURE() << "docs/backends.md has a column '" << name << "' that no backend has";
    }
  }
  EXPECT_GE(checked, 5);
}

}  // namespace
