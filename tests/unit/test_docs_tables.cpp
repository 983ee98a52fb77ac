// docs/backends.md's capability table, checked against the backends'
// descriptions (runtime/devices/backend_description.hpp): the atomics and device
// options rows, so the table users read cannot drift from what the backends
// accept. The descriptions are what the registry, the devices and tack::inspect read.
#include "runtime/devices/backend_description.hpp"
#include "support/markdown_table.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using tack::runtime::BackendDescription;

// The rows of the "## Capabilities" table, by their first cell ("" for the header).
std::map<std::string, std::vector<std::string>> capability_rows() {
  std::ifstream in(std::string(TACK_SOURCE_DIR) + "/docs/backends.md");
  EXPECT_TRUE(in) << "docs/backends.md not found under " << TACK_SOURCE_DIR;
  std::map<std::string, std::vector<std::string>> rows;
  std::string line;
  bool in_capabilities = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_capabilities = line == "## Capabilities";
    if (!in_capabilities || line.rfind("|", 0) != 0) continue;
    std::vector<std::string> cells = tack_test::markdown_cells(line);
    if (!cells.empty()) rows[cells[0]] = cells;
  }
  return rows;
}

// "all ten" or a space-separated dtype list, up to an optional "; note".
std::string listed_dtypes(const std::string& cell) {
  std::string s = cell.substr(0, cell.find(';'));
  if (s == "all ten") return "i8 u8 i16 u16 i32 u32 i64 u64 f32 f64";
  return s;
}

std::string dtype_list(const std::vector<tack::DType>& dtypes) {
  std::string s;
  for (tack::DType t : dtypes) s += (s.empty() ? "" : " ") + std::string(tack::dtype_name(t));
  return s;
}

// The `quoted` names of a cell, in order ("—" and prose around them carry none).
std::vector<std::string> listed_names(const std::string& cell) {
  std::vector<std::string> names;
  for (std::size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open)) {
    const std::size_t close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    names.push_back(cell.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return names;
}

// Checks one row: every column against the description of the backend it names.
template <class Check>
void check_row(const std::string& row_name, Check check) {
  auto rows = capability_rows();
  ASSERT_TRUE(rows.count("")) << "docs/backends.md: the Capabilities table has no header";
  ASSERT_TRUE(rows.count(row_name)) << "docs/backends.md: the Capabilities table has no '" << row_name << "' row";
  const std::vector<std::string>& names = rows[""];
  const std::vector<std::string>& values = rows[row_name];
  ASSERT_EQ(names.size(), values.size()) << row_name;
  int checked = 0;
  for (std::size_t i = 1; i < names.size(); ++i) {
    if (const BackendDescription* d = tack::runtime::find_backend_description(names[i])) {
      check(*d, values[i]);
      ++checked;
    } else if (names[i] != "cpu") {  // a build without LLVM has no cpu backend
      ADD_FAILURE() << "docs/backends.md has a column '" << names[i] << "' that no backend has";
    }
  }
  EXPECT_GE(checked, 5);
}

TEST(DocsTables, AtomicsRowMatchesTheDescriptions) {
  check_row("atomics", [](const BackendDescription& d, const std::string& cell) {
    EXPECT_EQ(listed_dtypes(cell), dtype_list(d.capabilities().supported_atomic_dtypes)) << d.name;
  });
}

TEST(DocsTables, DeviceOptionsRowMatchesTheDescriptions) {
  check_row("device options", [](const BackendDescription& d, const std::string& cell) {
    EXPECT_EQ(listed_names(cell), d.options) << d.name;
  });
}

// Every column of the table is a backend, and every backend but interp (the reference, described in
// docs/semantics.md) has a column.
TEST(DocsTables, TheTableHasAColumnPerBackend) {
  std::vector<std::string> header = capability_rows()[""];
  for (const BackendDescription* d : tack::api::backend_descriptions())
    if (d->name != "interp") EXPECT_NE(std::find(header.begin(), header.end(), d->name), header.end()) << d->name;
}

// The devices read the same descriptions: what tack::device refuses and what Capabilities says agree.
TEST(DocsTables, DevicesReportTheirDescriptionsOptions) {
  for (const std::string& name : tack::backend_names()) {
    const BackendDescription* d = tack::runtime::find_backend_description(name);
    ASSERT_NE(d, nullptr) << name;
    try {
      EXPECT_EQ(tack::device(name).capabilities().device_options, d->options) << name;
    } catch (const tack::BackendUnavailable&) {  // no driver or device here
    }
  }
}

}  // namespace
