// glibc's copy of the x86 cpuid leaves, read once at process start for its own
// dispatch (public since glibc 2.33 as <sys/platform/x86.h>). Declared here
// because that header's inline functions are C, not C++ (clang refuses their
// _Bool). Reading it instead of executing cpuid matters on virtual machines,
// where every cpuid instruction traps to the hypervisor (5 to 13 us each on
// this project's machines), and instead of GCC's __builtin_cpu_supports,
// whose libgcc initializer would run its own cpuid calls when libtack loads.
#pragma once

#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define TACK_GLIBC_CPUID 1

extern "C" {
struct tack_glibc_cpuid_feature {
  unsigned int cpuid_array[4];   // eax, ebx, ecx, edx as cpuid returned them
  unsigned int active_array[4];  // the bits of those the OS has also enabled
};
// Index 0 is leaf 1, 1 leaf 7, 2 leaf 0x80000001, 3 leaf 0xD subleaf 1, 4 leaf
// 0x80000007, 5 leaf 0x80000008, 6 leaf 7 subleaf 1, 7 leaf 0x19, 8 leaf 0x14.
const tack_glibc_cpuid_feature* __x86_get_cpuid_feature_leaf(unsigned int index);
}

namespace tack::support {

// Whether the host can run AVX2 / AVX-512F code now (the CPU has it and the OS saves its registers).
inline bool host_has_avx2() { return (__x86_get_cpuid_feature_leaf(1)->active_array[1] >> 5) & 1u; }
inline bool host_has_avx512f() { return (__x86_get_cpuid_feature_leaf(1)->active_array[1] >> 16) & 1u; }

}  // namespace tack::support

#endif
