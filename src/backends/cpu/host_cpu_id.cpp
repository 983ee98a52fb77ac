// The words: the leaves glibc read once at process start for its own dispatch
// (1, 7, 7.1, 0xD.1, 0x14, 0x19, 0x80000001, 0x80000007, 0x80000008), with the
// bits it found the OS to enable, so that no cpuid instruction runs here
// (support/glibc_cpuid.hpp says why). No vendor: leaf 0 would cost a cpuid, and
// the feature words (with leaf 1's family and model) name everything the
// generated code may use. Leaf 1's EBX is left out: it carries the APIC ID of
// whichever core ran the query. AVX10's leaf 0x24 is read only on a CPU that
// has AVX10. Without glibc's copy, the same leaves come from cpuid itself.
#include "backends/cpu/host_cpu_id.hpp"

#include "support/glibc_cpuid.hpp"

#include <cstdint>
#include <string>
#include <utility>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TACK_HOST_CPUID 1
#endif

namespace tack::backends::cpu {

#if TACK_HOST_CPUID

namespace {

struct Words {
  std::string text = "x86";
  void add(std::uint32_t w) {  // ":%08x", without printf's cost on a first call
    char buf[9] = {':'};
    for (int i = 0; i < 8; ++i) buf[1 + i] = "0123456789abcdef"[(w >> (28 - 4 * i)) & 0xF];
    text.append(buf, 9);
  }
  void add(const std::uint32_t (&r)[4], bool with_ebx = true) {
    add(r[0]);
    add(with_ebx ? r[1] : 0);
    add(r[2]);
    add(r[3]);
  }
};

void cpuid(std::uint32_t leaf, std::uint32_t sub, std::uint32_t (&r)[4]) {
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

constexpr std::uint32_t kAvx10Bit = 1u << 19;  // leaf 7.1 EDX

// Leaf 0's highest basic leaf: read only where a CPU has AVX10, whose leaf 0x24 it bounds.
std::uint32_t max_basic_leaf() {
  std::uint32_t r[4];
  cpuid(0, 0, r);
  return r[0];
}

}  // namespace

std::string host_cpu_id() {
  Words w;
  std::uint32_t r[4];
  std::uint32_t leaf_7_1_edx = 0;
#if TACK_GLIBC_CPUID
  w.text += "|glibc";
  constexpr unsigned kLeaf1 = 0, kLeaf7Sub1 = 6, kLastIndex = 8;
  for (unsigned index = 0; index <= kLastIndex; ++index) {
    const tack_glibc_cpuid_feature* f = __x86_get_cpuid_feature_leaf(index);
    std::uint32_t raw[4], active[4];
    for (int k = 0; k < 4; ++k) {
      raw[k] = f->cpuid_array[k];
      active[k] = f->active_array[k];
    }
    w.add(raw, /*with_ebx=*/index != kLeaf1);
    w.add(active, /*with_ebx=*/index != kLeaf1);
    if (index == kLeaf7Sub1) leaf_7_1_edx = raw[3];
  }
#else
  cpuid(0, 0, r);
  const std::uint32_t max_leaf = r[0];
  w.add(r);
  for (auto [leaf, sub] :
       {std::pair<std::uint32_t, std::uint32_t>{1, 0}, {7, 0}, {7, 1}, {0xD, 1}, {0x14, 0}, {0x19, 0}}) {
    if (leaf > max_leaf) {
      w.add(0);
      continue;
    }
    cpuid(leaf, sub, r);
    w.add(r, /*with_ebx=*/leaf != 1);
    if (leaf == 7 && sub == 1) leaf_7_1_edx = r[3];
  }
  cpuid(0x80000000u, 0, r);
  const std::uint32_t max_ext = r[0];
  for (std::uint32_t leaf : {0x80000001u, 0x80000007u, 0x80000008u}) {
    if (leaf > max_ext) continue;
    cpuid(leaf, 0, r);
    w.add(r);
  }
  std::uint32_t a1[4];
  cpuid(1, 0, a1);
  if (a1[2] & (1u << 27)) {  // OSXSAVE: XCR0 says which register files the OS saves
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    w.add(lo);
    w.add(hi);
  }
#endif
  if ((leaf_7_1_edx & kAvx10Bit) && max_basic_leaf() >= 0x24) {
    cpuid(0x24, 0, r);
    w.add(r);
  }
  return w.text;
}

#else

std::string host_cpu_id() { return {}; }

#endif

}  // namespace tack::backends::cpu
