// An index into an array of small records: `size * x + offset`, size a constant from 2 to 16 and offset a constant
// (k-means' points[8 * i + f], an array of vec3s, RGB pixels). The CPU's gangs read such fields of one record per
// lane from one block (codegen/llvm/llvm_gang_memory.cpp) and add whole records as short vectors (record_adds.hpp).
#pragma once

#include "ir/ir.hpp"

#include <cstdint>
#include <functional>
#include <optional>

namespace tack::analysis {

struct RecordIndex {
  const ir::Expr* record;  // x
  std::int64_t size;
  std::int64_t offset;  // any constant: offset / size records on, field offset % size
};

inline constexpr std::int64_t kMaxRecordSize = 16;

// `index` as a record index, looking through what `resolve` looks through (the identity for none).
std::optional<RecordIndex> record_index(const ir::Expr& index,
                                        const std::function<const ir::Expr&(const ir::Expr&)>& resolve);

}  // namespace tack::analysis
