// Integers written after a space each (" 12 -3 7"): the lines of the disk cache's front entries
// (runtime/kernels/front_index.cpp, backends/cpu/front_entry.cpp), which read them back exactly.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace tack::support {

inline void append_spaced_number(std::string& out, std::int64_t v) {
  char buffer[24];
  out += ' ';
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
}

// Takes " <integer>" off the front of `text`; false where it does not start so.
inline bool read_spaced_number(std::string_view& text, std::int64_t& v) {
  if (text.empty() || text[0] != ' ') return false;
  const auto [end, err] = std::from_chars(text.data() + 1, text.data() + text.size(), v);
  if (err != std::errc()) return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

}  // namespace tack::support
