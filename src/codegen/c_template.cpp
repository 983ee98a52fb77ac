// fill_template: the holes of a helper's C template filled in one pass.
#include "codegen/c_template.hpp"

#include "ir/check.hpp"

namespace tack::codegen {

std::string fill_template(std::string_view text, TemplateValues values) {
  std::string out;
  out.reserve(text.size() + 64);
  std::size_t at = 0;
  for (;;) {
    const std::size_t open = text.find("${", at);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find('}', open + 2);
    TACK_CHECK(close != std::string_view::npos);
    const std::string_view name = text.substr(open + 2, close - open - 2);
    const std::string_view* value = nullptr;
    for (const auto& [key, v] : values)
      if (key == name) value = &v;
    TACK_CHECK(value);
    out.append(text, at, open - at);
    out += *value;
    at = close + 1;
  }
  out.append(text, at);
  return out;
}

}  // namespace tack::codegen
