// TACK_CPU_MALLOC=1: glibc keeps freed memory for the next arrays (docs/environment.md).
#pragma once

namespace tack::backends::cpu {

// Once per process, when the first cpu device is made: where TACK_CPU_MALLOC is on and the C library is glibc,
// arrays up to 32 MiB come from the heap (not from an mmap each) and the heap is never trimmed, so an array made
// after one was dropped reuses its pages instead of faulting in zeroed ones. Does nothing otherwise.
void keep_freed_pages_if_asked();

}  // namespace tack::backends::cpu
