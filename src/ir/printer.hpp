// Stable text for Tack IR: cache keys hash it and tack::inspect shows it, so the
// same IR always prints the same bytes.
#pragma once

#include "ir/ir.hpp"

#include <string>

namespace tack::ir {

std::string to_string(const Type& t);
std::string to_string(const Expr& e);
std::string to_string(const Stmt& s, int indent = 0);
std::string to_string(const Kernel& k);
// The same text with each named Var's name after its type (`v3: f32  # acc.x`): what inspect shows.
// The names are debug information, so they stay out of to_string(k), the text every cache key hashes.
std::string to_string_named(const Kernel& k);

}  // namespace tack::ir
