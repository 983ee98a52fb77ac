// PrivateAdds: the copies, their zeroing and their sum (private_adds.hpp).
#include "backends/cpu/private_adds.hpp"

#include "ir/check.hpp"
#include "ir/dtype_dispatch.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <type_traits>

namespace tack::backends::cpu {
namespace {

constexpr std::size_t kLine = 64;  // copies start on their own cache lines

std::size_t round_up(std::size_t n) { return (n + kLine - 1) / kLine * kLine; }

// a + b as the kernel's add computes it: integers wrap.
template <class T>
T plus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

}  // namespace

PrivateAdds::PrivateAdds(std::vector<PrivateArray> arrays, int chunks, PrivateScratch& scratch)
    : arrays_(std::move(arrays)), chunks_(chunks), begins_(static_cast<std::size_t>(chunks), 0) {
  for (const PrivateArray& a : arrays_) {
    offsets_.push_back(block_bytes_);
    block_bytes_ += round_up(static_cast<std::size_t>(a.size) * dtype_size(a.dtype));
  }
  const std::size_t bytes = block_bytes_ * static_cast<std::size_t>(chunks) + kLine;
  if (scratch.size < bytes) {
    scratch.bytes.reset(new std::byte[bytes]);
    scratch.size = bytes;
  }
  const auto address = reinterpret_cast<std::uintptr_t>(scratch.bytes.get());
  base_ = scratch.bytes.get() + (round_up(address) - address);
}

std::byte* PrivateAdds::copy_of(int claim, std::size_t array) const {
  return base_ + block_bytes_ * static_cast<std::size_t>(claim) + offsets_[array];
}

void PrivateAdds::claim(std::int64_t begin, const std::uint64_t* launch_pack, std::size_t slots, std::uint64_t* pack,
                        bool launching_thread) {
  std::memcpy(pack, launch_pack, slots * sizeof(std::uint64_t));
  if (launching_thread && launching_thread_claim_ >= 0) {
    for (std::size_t a = 0; a < arrays_.size(); ++a)
      pack[arrays_[a].pack_slot] = reinterpret_cast<std::uintptr_t>(copy_of(launching_thread_claim_, a));
    return;
  }
  const int claim = claimed_.fetch_add(1, std::memory_order_relaxed);
  TACK_CHECK(claim < chunks_);
  begins_[static_cast<std::size_t>(claim)] = begin;
  if (launching_thread) launching_thread_claim_ = claim;
  for (std::size_t a = 0; a < arrays_.size(); ++a) {
    std::byte* copy = copy_of(claim, a);
    ir::with_dtype(arrays_[a].dtype, [&](auto zero) {
      using T = decltype(zero);
      const T nothing = std::is_floating_point_v<T> ? T(-0.0) : T(0);
      std::fill_n(reinterpret_cast<T*>(copy), arrays_[a].size, nothing);
    });
    pack[arrays_[a].pack_slot] = reinterpret_cast<std::uintptr_t>(copy);
  }
}

void PrivateAdds::finish() {
  const int claimed = claimed_.load(std::memory_order_acquire);
  if (claimed == 0) return;
  std::vector<int> order(static_cast<std::size_t>(claimed));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return begins_[static_cast<std::size_t>(a)] < begins_[static_cast<std::size_t>(b)]; });
  for (std::size_t a = 0; a < arrays_.size(); ++a) {
    ir::with_dtype(arrays_[a].dtype, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, bool>) {
        TACK_UNREACHABLE("PrivateAdds: a bool array has no adds");
      } else {
        const auto n = static_cast<std::size_t>(arrays_[a].size);
        T* first = reinterpret_cast<T*>(copy_of(order[0], a));
        for (std::size_t k = 1; k < order.size(); ++k) {
          const T* next = reinterpret_cast<const T*>(copy_of(order[k], a));
          for (std::size_t j = 0; j < n; ++j) first[j] = plus(first[j], next[j]);
        }
        T* data = static_cast<T*>(arrays_[a].data);
        for (std::size_t j = 0; j < n; ++j) std::atomic_ref<T>(data[j]).fetch_add(first[j], std::memory_order_relaxed);
      }
    });
  }
}

}  // namespace tack::backends::cpu
