// row_blocks (row_blocks.hpp).
#include "backends/cpu/row_blocks.hpp"

#include <algorithm>

namespace tack::backends::cpu {

RowBlocks row_blocks(std::int64_t outer, std::int64_t span, int threads) {
  RowBlocks out;
  if (outer < 2 || span < 1 || threads < 2 || outer < 2 * span) return out;
  const std::int64_t parts = 2 * static_cast<std::int64_t>(threads);
  out.rows_per_block = std::max(span, (outer + parts - 1) / parts);
  out.blocks = (outer + out.rows_per_block - 1) / out.rows_per_block;
  return out;
}

}  // namespace tack::backends::cpu
