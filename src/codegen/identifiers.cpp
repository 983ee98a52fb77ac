// Identifier encoding for generated entry points.
#include "codegen/identifiers.hpp"

namespace tack::codegen {

std::string encode_identifier(std::string_view name) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(name.size() + 8);
  for (unsigned char c : name) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      out += static_cast<char>(c);
    } else if (c == '_') {
      out += "__";
    } else {
      out += '_';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string kernel_entry_name(std::string_view kernel_name) { return "tack_kernel_" + encode_identifier(kernel_name); }
std::string chunk_entry_name(std::string_view kernel_name) { return "tack_chunk_" + encode_identifier(kernel_name); }

}  // namespace tack::codegen
