// Names generated code gives its entry points: ASCII-safe, reversible, and in a
// tack_ namespace so no kernel can collide with libm or another kernel.
#pragma once

#include <string>
#include <string_view>

namespace tack::codegen {

// Letters and digits are kept; '_' becomes "__"; any other byte becomes "_XX" (hex).
std::string encode_identifier(std::string_view name);

// "tack_kernel_<encoded name>": the kernel function itself.
std::string kernel_entry_name(std::string_view kernel_name);

// "tack_chunk_<encoded name>": the CPU wrapper void(const uint64_t* pack, int64_t start, int64_t end).
std::string chunk_entry_name(std::string_view kernel_name);

}  // namespace tack::codegen
