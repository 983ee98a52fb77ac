// The cells of a row of a Markdown table, for tests that hold a table in docs/
// equal to the code it describes.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace tack_test {

// "| a | b |" -> {"a", "b"}, each cell trimmed of spaces.
inline std::vector<std::string> markdown_cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream ss(row);
  std::string cell;
  std::getline(ss, cell, '|');  // before the first bar
  while (std::getline(ss, cell, '|')) {
    auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

}  // namespace tack_test
