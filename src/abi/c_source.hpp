// Generated source and how to call it: what a C-family code generator hands a
// GPU backend's compiler (and the disk cache keeps beside the binary), so it
// sits below both.
#pragma once

#include <string>

namespace tack::abi {

// The kernel's parameters are, in order, one pointer for each Array and
// Texture3D parameter of the packed kernel (pack arrays included; scalar
// parameters are read from the packs and not passed), then the launch count
// `__n__` as a 64-bit integer: iterations for a parallel kernel, groups for a
// workgroup kernel. A Texture3D parameter sampled in hardware
// (Param::hardware_texture, CUDA and HIP) takes its texture object by value in
// its place instead of a pointer (8 bytes, as a pointer). MSL passes the same
// list as the fields of one argument buffer.
struct CSource {
  std::string text;
  std::string entry;  // the kernel's function name
};

}  // namespace tack::abi
