// The buffer cache's policy and TACK_HIP_ALLOCATOR.
#include "backends/hip/hip_buffer_cache.hpp"

#include <tack/error.hpp>

#include <bit>
#include <string>

namespace tack::backends::hip {

std::size_t BufferCache::capacity_class(std::size_t bytes) {
  constexpr std::size_t kMin = 256;
  if (bytes <= kMin) return kMin;
  // Steps of a quarter of the power of two below: 2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k, 2^(k+1).
  const int k = std::bit_width(bytes) - 1;
  const std::size_t step = std::size_t{1} << (k - 2);
  const std::size_t rounded = (bytes + step - 1) / step * step;
  return rounded;
}

BufferCache::Block BufferCache::acquire(std::size_t bytes) {
  const std::size_t capacity = capacity_class(bytes);
  {
    std::lock_guard lock(mutex_);
    auto it = free_.find(capacity);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      held_ -= capacity;
      return {p, capacity};
    }
  }
  if (void* p = allocator_.allocate(capacity)) return {p, capacity};
  trim();  // memory the cache keeps may be what the device lacks
  return {allocator_.allocate(capacity), capacity};
}

void BufferCache::give_back(Block block) noexcept {
  if (!block.ptr) return;
  {
    std::lock_guard lock(mutex_);
    if (held_ + block.capacity <= limit_) {
      try {
        free_[block.capacity].push_back(block.ptr);
        held_ += block.capacity;
        return;
      } catch (...) {
        // No memory for the list entry: release the buffer instead.
      }
    }
  }
  allocator_.release(block.ptr, block.capacity);
}

void BufferCache::trim() noexcept {
  std::map<std::size_t, std::vector<void*>> released;
  {
    std::lock_guard lock(mutex_);
    released.swap(free_);
    held_ = 0;
  }
  for (auto& [capacity, ptrs] : released)
    for (void* p : ptrs) allocator_.release(p, capacity);
}

std::size_t BufferCache::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_;
}

AllocatorKind allocator_kind(const char* env_value) {
  if (!env_value || !*env_value) return AllocatorKind::Cache;
  const std::string v(env_value);
  if (v == "cache") return AllocatorKind::Cache;
  if (v == "pool") return AllocatorKind::Pool;
  throw InvalidArgument("hip: TACK_HIP_ALLOCATOR='" + v +
                        "' is not an allocator; use 'cache' (hipMalloc through Tack's buffer cache, the default) or "
                        "'pool' (the runtime's stream-ordered pool, hipMallocAsync)");
}

}  // namespace tack::backends::hip
