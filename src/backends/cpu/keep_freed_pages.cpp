// keep_freed_pages_if_asked: glibc's mallopt, once. Page faults on fresh memory cost a kernel that writes a new
// array as much as the writes (a zeroed 4 KiB page per fault); glibc gives every allocation over its mmap
// threshold its own mapping and returns it at free, and trims the heap's top, so a loop that makes and drops
// arrays faults on all of them every time.
#include "backends/cpu/keep_freed_pages.hpp"

#include "support/env.hpp"

#include <climits>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tack::backends::cpu {

void keep_freed_pages_if_asked() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!support::env_flag("TACK_CPU_MALLOC")) return;
#if defined(__GLIBC__)
    // 32 MiB is the largest mmap threshold glibc accepts on 64-bit hosts (DEFAULT_MMAP_THRESHOLD_MAX); larger
    // arrays still get a mapping of their own. A trim threshold past any heap keeps freed memory in it.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
  });
}

}  // namespace tack::backends::cpu
