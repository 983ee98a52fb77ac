// What a kernel argument or parameter is. One enum for every layer that names
// it: the public KernelArg, the parameter spec a kernel's signature declares,
// the IR's parameters (ir::ParamKind) and the Python bindings (tack._core.ArgKind).
#pragma once

#include <cstdint>

namespace tack {

// A texture is the language's Texture3D; the IR prints it under that name.
enum class ArgKind : std::uint8_t { Array, Scalar, Texture };

}  // namespace tack
