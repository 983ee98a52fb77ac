// The hip backend's buffer cache policy (reference: HIP, Launch), over a
// counting allocator instead of a device: capacity classes, reuse by class,
// the quarter-of-the-device limit, trimming on out-of-memory, and
// TACK_HIP_ALLOCATOR's values.
#include "backends/hip/hip_buffer_cache.hpp"

#include <tack/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {
using tack::backends::hip::allocator_kind;
using tack::backends::hip::AllocatorKind;
using tack::backends::hip::BufferAllocator;
using tack::backends::hip::BufferCache;

// Hands out distinct fake addresses; runs out past `budget` bytes live.
class CountingAllocator final : public BufferAllocator {
 public:
  explicit CountingAllocator(std::size_t budget = SIZE_MAX) : budget_(budget) {}
  void* allocate(std::size_t bytes) override {
    if (live_ + bytes > budget_) {
      ++refusals;
      return nullptr;
    }
    live_ += bytes;
    ++allocations;
    next_ += 4096 + bytes;
    return reinterpret_cast<void*>(next_);
  }
  void release(void*, std::size_t bytes) noexcept override {
    live_ -= bytes;
    ++releases;
  }
  std::size_t live() const { return live_; }
  int allocations = 0, releases = 0, refusals = 0;

 private:
  std::size_t budget_, live_ = 0;
  std::uintptr_t next_ = 0x10000;
};

TEST(HipBufferCache, CapacityClassesWasteAtMostAQuarter) {
  EXPECT_EQ(BufferCache::capacity_class(0), 256u);
  EXPECT_EQ(BufferCache::capacity_class(1), 256u);
  EXPECT_EQ(BufferCache::capacity_class(256), 256u);
  EXPECT_EQ(BufferCache::capacity_class(257), 320u);  // 256 + 64
  EXPECT_EQ(BufferCache::capacity_class(1000), 1024u);
  EXPECT_EQ(BufferCache::capacity_class(1024), 1024u);
  EXPECT_EQ(BufferCache::capacity_class(1025), 1280u);
  EXPECT_EQ(BufferCache::capacity_class(3u << 20), 3u << 20);
  for (std::size_t bytes : {300u, 777u, 5000u, 123457u, 9999999u}) {
    const std::size_t c = BufferCache::capacity_class(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_LE(c - bytes, bytes / 4) << bytes;
    EXPECT_EQ(BufferCache::capacity_class(c), c) << "a class is its own class";
  }
}

TEST(HipBufferCache, ADroppedBufferIsReusedForItsClassWithoutAnAllocation) {
  CountingAllocator alloc;
  BufferCache cache(alloc, 1 << 20);
  BufferCache::Block a = cache.acquire(1000);
  EXPECT_EQ(a.capacity, 1024u);
  cache.give_back(a);
  EXPECT_EQ(cache.held_bytes(), 1024u);
  BufferCache::Block b = cache.acquire(900);  // same class
  EXPECT_EQ(b.ptr, a.ptr);
  EXPECT_EQ(alloc.allocations, 1);
  EXPECT_EQ(cache.held_bytes(), 0u);
  BufferCache::Block c = cache.acquire(5000);  // another class: a new buffer
  EXPECT_NE(c.ptr, a.ptr);
  EXPECT_EQ(alloc.allocations, 2);
  cache.give_back(b);
  cache.give_back(c);
  EXPECT_EQ(alloc.releases, 0);
}

TEST(HipBufferCache, KeepsAtMostItsLimitAndReleasesTheRest) {
  CountingAllocator alloc;
  BufferCache cache(alloc, 4096);  // a device of 16 KiB
  std::vector<BufferCache::Block> blocks;
  for (int i = 0; i < 6; ++i) blocks.push_back(cache.acquire(1024));
  for (auto& b : blocks) cache.give_back(b);
  EXPECT_EQ(cache.held_bytes(), 4096u);
  EXPECT_EQ(alloc.releases, 2);
  EXPECT_EQ(alloc.live(), 4096u);
  cache.trim();
  EXPECT_EQ(cache.held_bytes(), 0u);
  EXPECT_EQ(alloc.live(), 0u);
}

TEST(HipBufferCache, OutOfMemoryTrimsTheCacheAndAsksAgain) {
  CountingAllocator alloc(8192);
  BufferCache cache(alloc, 8192);
  BufferCache::Block small1 = cache.acquire(4096), small2 = cache.acquire(4096);
  cache.give_back(small1);
  cache.give_back(small2);
  EXPECT_EQ(cache.held_bytes(), 8192u);
  BufferCache::Block big = cache.acquire(8192);  // only fits once the cache lets go
  EXPECT_NE(big.ptr, nullptr);
  EXPECT_EQ(alloc.refusals, 1);
  EXPECT_EQ(cache.held_bytes(), 0u);
  BufferCache::Block more = cache.acquire(4096);  // nothing left to trim: refused
  EXPECT_EQ(more.ptr, nullptr);
  cache.give_back(big);
}

TEST(HipBufferCache, DestructionReleasesEverythingKept) {
  CountingAllocator alloc;
  {
    BufferCache cache(alloc, 1 << 20);
    cache.give_back(cache.acquire(100));
    cache.give_back(cache.acquire(10000));
  }
  EXPECT_EQ(alloc.live(), 0u);
  EXPECT_EQ(alloc.releases, 2);
}

TEST(HipAllocatorOption, CacheIsTheDefaultPoolIsAskedForAndOthersAreRefused) {
  EXPECT_EQ(allocator_kind(nullptr), AllocatorKind::Cache);
  EXPECT_EQ(allocator_kind(""), AllocatorKind::Cache);
  EXPECT_EQ(allocator_kind("cache"), AllocatorKind::Cache);
  EXPECT_EQ(allocator_kind("pool"), AllocatorKind::Pool);
  try {
    allocator_kind("Pool ");
    FAIL() << "a bad TACK_HIP_ALLOCATOR was accepted";
  } catch (const tack::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("TACK_HIP_ALLOCATOR"), std::string::npos) << what;
    EXPECT_NE(what.find("'pool'"), std::string::npos) << what;
  }
}

}  // namespace
