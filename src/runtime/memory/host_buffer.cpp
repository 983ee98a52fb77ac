// Host memory for arrays: aligned for vector loads, and not touched at
// allocation unless zeroing was asked for, so the kernel that writes it first
// places its pages.
#include "runtime/memory/host_buffer.hpp"

#include <tack/error.hpp>

#include <cstdlib>
#include <cstring>
#include <new>
#include <cstdint>
#include <unistd.h>

namespace tack::runtime {

namespace {
// The machine's physical memory; 0 when unknown.
std::uint64_t physical_memory() {
  static const std::uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) : 0;
  }();
  return bytes;
}
}  // namespace

HostBuffer::HostBuffer(std::size_t bytes, bool zeroed) : Buffer(bytes) {
  // Linux overcommits: an allocation beyond the machine's memory may succeed here and kill the process when
  // touched, so it is refused while the caller can still be told.
  if (std::uint64_t mem = physical_memory(); mem && bytes > mem)
    throw InvalidArgument("cannot allocate an array of " + std::to_string(bytes) + " bytes: the machine has " +
                          std::to_string(mem) + " bytes of memory");
  std::size_t rounded = (bytes + 63) / 64 * 64;
  data_ = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!data_) throw InvalidArgument("cannot allocate " + std::to_string(bytes) + " bytes of host memory for an array");
  if (zeroed) std::memset(data_, 0, bytes);
}

HostBuffer::HostBuffer(void* data, std::size_t bytes, std::shared_ptr<void> keep_alive)
    : Buffer(bytes), data_(data), owned_(false), keep_alive_(std::move(keep_alive)) {
  mark_external();
}

HostBuffer::~HostBuffer() {
  if (owned_) std::free(data_);
}

void HostBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  std::memcpy(static_cast<char*>(data_) + offset, src, bytes);
}

void HostBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  std::memcpy(dst, static_cast<const char*>(data_) + offset, bytes);
}

void HostBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  char* p = static_cast<char*>(data_);
  for (std::size_t i = 0; i < count; ++i) std::memcpy(p + i * element_size, element, element_size);
}

}  // namespace tack::runtime
