// The loaded object (the program, libtack, a driver library) that holds an
// address, from the loader's list of loaded objects, and the file it was
// mapped from. dladdr names the file too but also searches the object's symbol
// table for the nearest symbol, which cost 10 to 16 us of a cached program's
// first kernel call (the CPU cache key names the compiler plugin beside
// libtack); the loader's list is enough.
#pragma once

#include <link.h>

#include <functional>
#include <string>

namespace tack::support {

// Calls visit with the loader's record of the loaded object whose PT_LOAD
// segments hold address (its program headers, where it is mapped); false, and
// no call, when none holds it.
bool visit_loaded_object(const void* address, const std::function<void(const dl_phdr_info&)>& visit);

// The path of the loaded object whose segments hold address: as the loader
// opened it for a library, /proc/self/exe's target for the program itself;
// empty when no loaded object holds it.
std::string loaded_file_of(const void* address);

}  // namespace tack::support
