// The launch of a device reduction: the array seen as one dimension, a result
// word holding the identity, the kernel launched through the ordinary path
// (trace, specialize, generate, disk cache, launch), and the word read back.
#include "runtime/reductions/device_reductions.hpp"

#include "abi/group_size.hpp"
#include "ir/check.hpp"
#include "runtime/reductions/array_reduction_kernel.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/diagnostics/group_size_error.hpp"

#include <tack/array.hpp>

#include <algorithm>
#include <memory>

namespace tack::runtime {
namespace {

std::atomic<std::uint64_t> g_launches{0};

}  // namespace

std::uint64_t DeviceReductions::launch_count() { return g_launches.load(); }

bool DeviceReductions::run(const ArrayStorage& array, ReduceOp op, std::uint64_t max_groups, double* out) {
  TACK_CHECK(array.dtype == DType::F32);
  if (array.size == 0) {  // min and max of an empty array are refused before this
    *out = 0.0;
    return true;
  }
  std::atomic<bool>& declined = declined_[static_cast<std::size_t>(op)];
  const Capabilities& caps = array.backend->caps();
  // A device without groups of 256 (or f32 atomics) leaves the reduction to the host.
  if (declined || !caps.supports_workgroups || !caps.supports_atomic(DType::F32)) return false;
  // One dimension whatever the array's shape, so every shape shares one variant.
  auto flat = std::make_shared<ArrayStorage>(
      ArrayStorage{array.backend, array.buffer, DType::F32, {array.size}, array.size, false, nullptr});
  const std::uint32_t identity = reduction_identity_bits(op);
  auto result = std::make_shared<ArrayStorage>(
      ArrayStorage{array.backend, array.backend->allocate(sizeof identity, false), DType::F32, {1}, 1, false, nullptr});
  result->buffer->fill(&identity, sizeof identity, 1);
  constexpr auto group = static_cast<std::uint64_t>(abi::kGroupSize);
  const std::uint64_t wanted = (static_cast<std::uint64_t>(array.size) + group - 1) / group;
  const auto groups = static_cast<std::int64_t>(std::max<std::uint64_t>(1, std::min(wanted, max_groups)));
  try {
    array_reduction_kernel(op)(Array(flat), Array(result), groups);
  } catch (const GroupSizeError&) {
    // The reduction's tree needs groups of 256; where the program runs fewer, the host reduces.
    declined = true;
    return false;
  }
  float value = 0;
  result->buffer->read(0, &value, sizeof value);  // waits for the launch
  *out = static_cast<double>(value);
  g_launches.fetch_add(1);
  return true;
}

}  // namespace tack::runtime
