// fill_host: a pattern of whole elements, copied block by block; blocks start at multiples of the pattern, so
// every block begins at an element's first byte.
#include "runtime/memory/host_fill.hpp"

#include "runtime/devices/backend.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace tack::runtime {
namespace {

constexpr std::size_t kPatternBytes = 256;                 // a multiple of every element size
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;  // below this a thread's share is not worth a wake-up

struct FillJob {
  unsigned char* data;
  std::size_t bytes;
  unsigned char pattern[kPatternBytes];

  static void run(void* context, std::int64_t first, std::int64_t last) {
    auto* job = static_cast<FillJob*>(context);
    const std::size_t begin = static_cast<std::size_t>(first) * kBlockBytes;
    const std::size_t end = std::min(job->bytes, static_cast<std::size_t>(last) * kBlockBytes);
    std::size_t at = begin;
    for (; at + kPatternBytes <= end; at += kPatternBytes) std::memcpy(job->data + at, job->pattern, kPatternBytes);
    std::memcpy(job->data + at, job->pattern, end - at);
  }
};

}  // namespace

void fill_host(const Backend& backend, void* data, const void* element, std::size_t element_size, std::size_t count) {
  if (count == 0) return;
  FillJob job{static_cast<unsigned char*>(data), count * element_size, {}};
  for (std::size_t at = 0; at < kPatternBytes; at += element_size) std::memcpy(job.pattern + at, element, element_size);
  const auto blocks = static_cast<std::int64_t>((job.bytes + kBlockBytes - 1) / kBlockBytes);
  if (blocks > 1)
    backend.run_host_parallel(blocks, FillJob::run, &job);
  else
    FillJob::run(&job, 0, 1);
}

}  // namespace tack::runtime
