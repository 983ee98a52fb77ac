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
// What cache keys and the kernel's hash are made of: to_string(k) with each expression node that has operands
// written in full where the text first meets it and as "#n" after, n counting such nodes in the order they were
// written. The IR is a DAG whose shared values to_string writes again at every use (a D2Q9 step's density, in each
// of nine stores: 14.7 KB); the same IR still gives the same text, and different trees different texts.
std::string to_key_text(const Kernel& k);

}  // namespace tack::ir
