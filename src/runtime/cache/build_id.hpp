// The identity of this build of Tack, for disk-cache keys: a compiled variant is
// keyed by the typed IR, but the code generated for the same IR changes with
// the generators, so an entry written by another build of Tack must miss.
#pragma once

#include <string>

namespace tack::runtime {

// The GNU build-id of the Tack library (hex) where the linker wrote one, else
// the path and modification time of the library file; never empty.
const std::string& library_build_id();

}  // namespace tack::runtime
