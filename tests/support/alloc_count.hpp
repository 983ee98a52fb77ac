// Counts operator new calls on the calling thread between arm() and disarm(),
// leaving out those made with a frame of a named library on the stack (a
// stand-in driver's own bookkeeping): what Tack itself allocates. The
// executable that uses it links tests/support/alloc_count.cpp, which replaces
// the global operator new.
#pragma once

#include <string>

namespace alloc_count {

void arm(const char* excluded_library);
// Stops counting; returns how many allocations were counted.
int disarm();
// The function the first counted allocation came from (for messages), or "?".
std::string first_caller();

}  // namespace alloc_count

namespace alloc_count {

// How many allocations f makes on this thread, leaving out excluded_library's.
template <class F>
int count_in(const char* excluded_library, F&& f) {
  arm(excluded_library);
  f();
  return disarm();
}

}  // namespace alloc_count
