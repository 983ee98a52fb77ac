// Helper C code written as raw-string templates: "${name}" marks a hole that
// fill_template replaces with the value given for that name, so a helper reads
// as the C it produces instead of a chain of string concatenations.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace tack::codegen {

using TemplateValues = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// `text` with every "${name}" replaced by its value (inserted text is not scanned again).
// A hole without a value is our bug, checked.
std::string fill_template(std::string_view text, TemplateValues values);

}  // namespace tack::codegen
