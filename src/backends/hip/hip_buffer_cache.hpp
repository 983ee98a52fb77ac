// The hip backend's cache of dropped arrays' buffers (reference: HIP, Launch):
// device memory comes from hipMalloc, and a dropped array's buffer is kept by
// capacity class for the next array of that class instead of hipFree'd, since
// hipFree waits for the device. Reuse needs no wait: every use of a buffer is
// queued on the device's one stream, so a dropped array's work runs before
// the work of the next array given its buffer, which is what a stream-ordered
// pool promises. The cache holds at most a quarter of the device's memory.
// ROCm 7.1.1's own pool (hipMallocAsync) slowed with every allocation it had
// made (63 to 600 us a call where hipMalloc stayed at 17 us), so it is only
// used when TACK_HIP_ALLOCATOR=pool asks for it.
//
// The policy is a plain class over an allocator interface, so it is tested
// without a device (tests/unit/test_hip_buffer_cache.cpp).
#pragma once

#include "support/no_copy.hpp"

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

namespace tack::backends::hip {

// Where the cache gets and returns memory (hipMalloc / hipFree on a device).
class BufferAllocator {
 public:
  virtual ~BufferAllocator() = default;
  // `bytes` of device memory, or nullptr when the device is out of memory; other failures throw.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* ptr, std::size_t bytes) noexcept = 0;
};

class BufferCache : support::NoCopy {
 public:
  // `limit`: the most bytes the cache keeps unused (a quarter of the device's memory).
  BufferCache(BufferAllocator& allocator, std::size_t limit) : allocator_(allocator), limit_(limit) {}
  ~BufferCache() { trim(); }

  // The capacity a request of `bytes` gets: at least 256 bytes, rounded up to the next of four steps per power
  // of two (so at most a quarter is wasted), which makes near sizes share buffers.
  static std::size_t capacity_class(std::size_t bytes);

  struct Block {
    void* ptr = nullptr;
    std::size_t capacity = 0;
    // Outside the cache: page-locked host memory the device maps ("hip_pinned", host is its host address) or
    // managed memory ("hip_managed", host == ptr); never given back to the cache.
    enum class Space : unsigned char { Device, Pinned, Managed } space = Space::Device;
    void* host = nullptr;
  };
  // A cached buffer of the request's class, else a new one; when the allocator is out of memory the cache
  // releases everything it holds and asks once more. nullptr ptr: still out of memory.
  Block acquire(std::size_t bytes);
  // Keeps a dropped buffer for reuse, or releases it when keeping it would pass the limit.
  void give_back(Block block) noexcept;
  // Releases every kept buffer.
  void trim() noexcept;

  std::size_t held_bytes() const;
  std::size_t limit() const { return limit_; }

 private:
  BufferAllocator& allocator_;
  const std::size_t limit_;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_;  // by capacity
  std::size_t held_ = 0;
};

// TACK_HIP_ALLOCATOR: unset or "cache" for hipMalloc through the BufferCache,
// "pool" for the runtime's stream-ordered pool (hipMallocAsync). Any other value is an InvalidArgument.
enum class AllocatorKind { Cache, Pool };
AllocatorKind allocator_kind(const char* env_value);

}  // namespace tack::backends::hip
