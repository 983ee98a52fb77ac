// Rewording the core's messages for Python users (python_words.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tack::python {

// Remembers a Python kernel's parameter names, so messages raised later (a debug-mode
// IndexError at a wait) can name its arguments too.
void register_kernel_params(const std::string& kernel, const std::vector<std::string>& names);

// `message` in Python's words: C++ constructs named as their Python forms, and
// "argument N" (counted from 0) as "argument 'x' (the 2nd)" when the parameter
// names are known (given, or registered for the kernel the message names).
std::string python_words(const std::string& message, const std::vector<std::string>* names = nullptr);

}  // namespace tack::python
