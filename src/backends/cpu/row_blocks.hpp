// How a CPU launch whose adds into some array are plain (analysis/row_scatter.hpp) splits into blocks of whole
// launch rows: each block at least `span` rows, so that every other block is more than the rows any work-item
// adds into apart from the next one of its color; the even blocks run at once, then the odd ones.
#pragma once

#include <cstdint>

namespace tack::backends::cpu {

struct RowBlocks {
  std::int64_t rows_per_block = 0;
  std::int64_t blocks = 0;  // fewer than 2: run the launch serially

  // Block b's launch rows: [first_row(b), end_row(b)).
  std::int64_t first_row(std::int64_t b) const { return b * rows_per_block; }
  std::int64_t end_row(std::int64_t b, std::int64_t outer) const {
    return (b + 1) * rows_per_block < outer ? (b + 1) * rows_per_block : outer;
  }
};

// Blocks for `outer` launch rows and a span of at least 1, two per thread where the rows allow.
RowBlocks row_blocks(std::int64_t outer, std::int64_t span, int threads);

}  // namespace tack::backends::cpu
