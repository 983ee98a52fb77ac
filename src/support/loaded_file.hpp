// The file a loaded object (the program, libtack, a driver library) was mapped
// from, found from an address inside it. dladdr answers the same but also
// searches the object's symbol table for the nearest symbol, which cost 10 to
// 16 us of a cached program's first kernel call (the CPU cache key names the
// compiler plugin beside libtack); the loader's list of loaded objects is
// enough to name the file.
#pragma once

#include <string>

namespace tack::support {

// The path of the loaded object whose segments hold address: as the loader
// opened it for a library, /proc/self/exe's target for the program itself;
// empty when no loaded object holds it.
std::string loaded_file_of(const void* address);

}  // namespace tack::support
