// The CPU's part of a front-index entry (runtime/kernels/front_index.hpp): what
// a launch of the variant reads besides the typed kernel's range, and its code.
#pragma once

#include "abi/pack_layout.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tack::backends::cpu {

struct FrontEntry {
  abi::PackLayout layout;
  std::int64_t scatter_span = -1;  // analysis::RowScatter::span, or -1
  std::vector<int> private_adds;   // the parameters added into private copies
  bool vector_math = false;        // the code calls glibc's vector math (libmvec), which must be loaded first
  std::string symbol;              // the chunk function's
  std::string_view object;         // the object code
};

// Lines of numbers, the symbol, then the object code:
//   layout <slots> <first slot of each parameter...>
//   scatter <span>
//   private <parameter...>
//   libmvec <0 or 1>
//   symbol <name>
//   <object code>
std::string write_front_entry(const FrontEntry& entry);

// The entry back (its object a view of `text`); nullopt where `text` is not one write_front_entry made for a
// layout of at most `max_slots` slots.
std::optional<FrontEntry> read_front_entry(std::string_view text, int max_slots);

}  // namespace tack::backends::cpu
