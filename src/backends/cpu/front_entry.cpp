// Writing and reading the CPU's part of a front-index entry.
#include "backends/cpu/front_entry.hpp"

#include "support/spaced_numbers.hpp"

namespace tack::backends::cpu {
namespace {

// The numbers of the next line, which must be `word` alone or `word` and a space before each number.
bool read_numbers(std::string_view& text, std::string_view word, std::vector<std::int64_t>& out) {
  const std::size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return false;
  std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl + 1);
  if (!line.starts_with(word)) return false;
  line.remove_prefix(word.size());
  out.clear();
  while (!line.empty()) {
    std::int64_t value = 0;
    if (!support::read_spaced_number(line, value)) return false;
    out.push_back(value);
  }
  return true;
}

}  // namespace

std::string write_front_entry(const FrontEntry& e) {
  std::string out = "layout";
  support::append_spaced_number(out, e.layout.slots);
  for (int s : e.layout.first_slot) support::append_spaced_number(out, s);
  out += "\nscatter";
  support::append_spaced_number(out, e.scatter_span);
  out += "\nprivate";
  for (int p : e.private_adds) support::append_spaced_number(out, p);
  out += std::string("\nlibmvec ") + (e.vector_math ? "1" : "0") + "\nsymbol " + e.symbol + "\n";
  out += e.object;
  return out;
}

std::optional<FrontEntry> read_front_entry(std::string_view text, int max_slots) {
  FrontEntry e;
  std::vector<std::int64_t> n;
  auto slot = [&](std::int64_t x) { return x >= 0 && x <= max_slots; };
  if (!read_numbers(text, "layout", n) || n.empty() || !slot(n[0])) return std::nullopt;
  e.layout.slots = static_cast<int>(n[0]);
  for (std::size_t i = 1; i < n.size(); ++i) {
    if (!slot(n[i])) return std::nullopt;
    e.layout.first_slot.push_back(static_cast<int>(n[i]));
  }
  if (!read_numbers(text, "scatter", n) || n.size() != 1 || n[0] < -1) return std::nullopt;
  e.scatter_span = n[0];
  if (!read_numbers(text, "private", n)) return std::nullopt;
  for (std::int64_t p : n) {
    if (p < 0 || static_cast<std::size_t>(p) >= e.layout.first_slot.size()) return std::nullopt;
    e.private_adds.push_back(static_cast<int>(p));
  }
  if (!read_numbers(text, "libmvec", n) || n.size() != 1 || (n[0] != 0 && n[0] != 1)) return std::nullopt;
  e.vector_math = n[0] == 1;
  const std::size_t nl = text.find('\n');
  if (!text.starts_with("symbol ") || nl == std::string_view::npos || nl <= 7) return std::nullopt;
  e.symbol = std::string(text.substr(7, nl - 7));
  e.object = text.substr(nl + 1);
  if (e.object.empty()) return std::nullopt;
  return e;
}

}  // namespace tack::backends::cpu
