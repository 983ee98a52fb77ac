// Counts heap allocations made on any thread between arm() and disarm(): malloc,
// calloc, realloc, aligned_alloc, posix_memalign and memalign, and so every
// operator new (plain, array, aligned, nothrow), which end in them. Those made
// with a frame of a named library on the stack (a stand-in driver's own
// bookkeeping) are left out: what is left is what Tack itself allocates. The
// executable that uses it links tests/support/alloc_count.cpp, which replaces
// malloc and its relatives (forwarding to glibc's) and the global operator new.
// Under a sanitizer, whose runtime owns malloc, only operator new is counted
// (counts_malloc() says which).
#pragma once

#include <string>

namespace alloc_count {

void arm(const char* excluded_library);
// Stops counting; returns how many allocations were counted.
int disarm();
// The function the first counted allocation came from (for messages), or "?".
std::string first_caller();
// Whether malloc and its relatives are counted (false in sanitizer builds).
bool counts_malloc();
// Checks the counter itself: a new-expression, malloc, aligned new and a malloc on
// another thread are each counted once. "" when they are, else what was not.
std::string self_check(const char* excluded_library);

}  // namespace alloc_count

namespace alloc_count {

// How many allocations any thread makes while f runs, leaving out excluded_library's.
template <class F>
int count_in(const char* excluded_library, F&& f) {
  arm(excluded_library);
  f();
  return disarm();
}

}  // namespace alloc_count
