// The key of a compiled variant: which kernel, and each argument's ArgKey
// (kind, dtype, rank, ...) plus the flags that change the code. Fixed size, so
// building and hashing one at every call allocates nothing.
#pragma once

#include "runtime/kernels/arg_key.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace tack::runtime {

inline constexpr int kMaxKernelParams = 32;
inline constexpr std::uint8_t kSignatureDebug = 1;    // debug mode: checked accesses
inline constexpr std::uint8_t kSignatureNoalias = 2;  // the call's arrays are proven disjoint
// The arrays the kernel only atomic-adds into are small enough for the backend to privatize
// (Backend::private_add_bytes, analysis/private_adds.hpp); set only with kSignatureNoalias, never in debug mode.
inline constexpr std::uint8_t kSignaturePrivateAdds = 4;

struct Signature {
  std::array<std::uint16_t, kMaxKernelParams> items{};  // by argument: ArgKey::encode()
  std::uint8_t count = 0;
  std::uint8_t flags = 0;  // kSignatureDebug | kSignatureNoalias | kSignaturePrivateAdds

  bool operator==(const Signature& o) const {
    if (count != o.count || flags != o.flags) return false;
    for (int i = 0; i < count; ++i)
      if (items[i] != o.items[i]) return false;
    return true;
  }
};

struct VariantKey {
  std::uint64_t kernel_hash_lo = 0, kernel_hash_hi = 0;  // of the traced IR, computed once per kernel
  Signature signature;
  bool operator==(const VariantKey& o) const {
    return kernel_hash_lo == o.kernel_hash_lo && kernel_hash_hi == o.kernel_hash_hi && signature == o.signature;
  }
};

struct VariantKeyHash {
  std::size_t operator()(const VariantKey& k) const {
    std::uint64_t h = k.kernel_hash_lo ^ (k.signature.flags * 0x9E3779B97F4A7C15ull);
    for (int i = 0; i < k.signature.count; ++i) h = (h ^ k.signature.items[i]) * 0x100000001B3ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

}  // namespace tack::runtime
