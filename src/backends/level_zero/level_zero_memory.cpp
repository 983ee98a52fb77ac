// Device buffers of the level_zero backend.
#include "backends/level_zero/level_zero_memory.hpp"

#include "backends/level_zero/level_zero_driver.hpp"
#include "runtime/memory/access.hpp"

#include <tack/error.hpp>

namespace tack::backends::level_zero {
using namespace tack::runtime;
namespace ze = level_zero::driver;

void Queue::write_buffer(void* ptr, std::size_t offset, const void* src, std::size_t bytes) {
  write(static_cast<unsigned char*>(ptr) + offset, src, bytes);
}

void Queue::read_buffer(void* ptr, std::size_t offset, void* dst, std::size_t bytes) {
  read(dst, static_cast<const unsigned char*>(ptr) + offset, bytes);
}

void Queue::fill_buffer(void* ptr, const void* element, std::size_t element_size, std::size_t count) {
  fill(ptr, element, element_size, element_size * count);
}

void Queue::copy_buffer(void* from, void* to, std::size_t bytes) {
  std::lock_guard lock(lock_);
  ordered(ze::api().zeCommandListAppendMemoryCopy(list_, to, from, bytes, nullptr, 0, nullptr),
          "zeCommandListAppendMemoryCopy");
}

void* device_pointer(const ArrayStorage& array) { return device_buffer_of<DeviceBuffer>(array, "level_zero").handle(); }

void* device_pointer(const tack::Array& array) {
  if (!array.valid()) throw InvalidArgument("device_pointer of an empty tack::Array");
  return device_pointer(*detail::Access::storage(array));
}

}  // namespace tack::backends::level_zero
