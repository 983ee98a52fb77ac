// The immediate command list, its barriers, host staging, holds, deferred frees and markers.
#include "backends/level_zero/level_zero_queue.hpp"

#include "backends/level_zero/level_zero_driver.hpp"

#include <tack/error.hpp>

#include <bit>
#include <cstring>
#include <limits>
#include <utility>

namespace tack::backends::level_zero {
using namespace tack::runtime;
namespace ze = level_zero::driver;
namespace {

constexpr std::uint32_t kEventsPerPool = 32;

}  // namespace

Queue::Queue(DeviceInfo device) : device_(std::move(device)) {
  ze::ze_command_queue_desc_t desc{};
  desc.stype = ze::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  desc.ordinal = device_.compute_ordinal;
  desc.flags = 0;  // not ZE_COMMAND_QUEUE_FLAG_IN_ORDER: barriers order the list at a fraction of the cost
  desc.mode = asynchronous() ? ze::ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS : ze::ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
  desc.priority = ze::ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  const ze::ze_result_t r = ze::api().zeCommandListCreateImmediate(device_.context, device_.device, &desc, &list_);
  if (r != ze::ZE_RESULT_SUCCESS) {
    if (device_.owns_context) ze::api().zeContextDestroy(device_.context);
    ze::check(r, "zeCommandListCreateImmediate");
  }
  // Room for every hold a wait may be put off for: a launch's pack upload never grows the list.
  holds_.reserve(kMaxHolds + 1);
}

Queue::~Queue() {
  // At process exit the driver may already be gone, and cleanup can crash: everything is left to the OS.
  if (ze::exiting()) return;
  const ze::Api& api = ze::api();
  try {
    synchronize();  // holds, staging and events must outlive the commands that use them
  } catch (const Error&) {
    // A failed wait at teardown has no one to report to. Past TACK_WAIT_TIMEOUT_S the device still runs a
    // kernel that may never end: what it may use (list, holds, staging, events) is abandoned, not freed.
    if (timed_out_) return;
  }
  std::vector<Hold> rest = take_holds();
  release(rest);
  for (auto& [capacity, block] : staging_) api.zeMemFree(device_.context, block);
  for (ze::ze_event_handle_t e : events_) api.zeEventDestroy(e);
  for (ze::ze_event_pool_handle_t p : pools_) api.zeEventPoolDestroy(p);
  api.zeCommandListDestroy(list_);
  if (device_.owns_context) api.zeContextDestroy(device_.context);
}

void* Queue::allocate(std::size_t bytes) {
  ze::ze_device_mem_alloc_desc_t desc{ze::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* ptr = nullptr;
  // Whole 32-bit words, at least one: an 8- or 16-bit atomic updates the word that contains its element.
  const std::size_t request = bytes ? (bytes + 3) / 4 * 4 : 4;
  const ze::ze_result_t r = ze::api().zeMemAllocDevice(device_.context, &desc, request, 64, device_.device, &ptr);
  if (r == ze::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    throw BackendError("level_zero: out of device memory allocating " + std::to_string(bytes) + " bytes on " +
                       device_.name + " (zeMemAllocDevice)");
  ze::check(r, "zeMemAllocDevice");
  return ptr;
}

void Queue::free(void* ptr) noexcept {
  if (!ptr || ze::exiting()) return;
  const ze::Api& api = ze::api();
  try {
    if (device_.defer_free) {
      // The driver frees it once the work queued so far has run, so a dropped array outlives its launches.
      ze::ze_memory_free_ext_desc_t desc{ze::ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, nullptr,
                                         ze::ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE};
      if (api.zeMemFreeExt(device_.context, &desc, ptr) == ze::ZE_RESULT_SUCCESS) return;
    }
    synchronize();  // without the extension, queued launches may still read it
  } catch (const Error&) {
    // A drop cannot report; the failed wait surfaces again at the next one.
  }
  api.zeMemFree(device_.context, ptr);
}

void Queue::ordered(ze::ze_result_t r, const char* call) {
  ze::check(r, call);
  if (!asynchronous()) return;  // a synchronous list completes each append before the next
  ze::check(ze::api().zeCommandListAppendBarrier(list_, nullptr, 0, nullptr), "zeCommandListAppendBarrier");
}

void* Queue::take_staging(std::size_t bytes, std::size_t* capacity) {
  *capacity = std::bit_ceil(std::max<std::size_t>(bytes, 4096));
  if (auto it = staging_.find(*capacity); it != staging_.end()) {
    void* block = it->second;
    staging_.erase(it);
    return block;
  }
  ze::ze_host_mem_alloc_desc_t desc{ze::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* block = nullptr;
  ze::check(ze::api().zeMemAllocHost(device_.context, &desc, *capacity, 64, &block), "zeMemAllocHost");
  return block;
}

void Queue::give_staging(void* block, std::size_t capacity) { staging_.emplace(capacity, block); }

void Queue::hold(Hold h) {
  if (!asynchronous()) {  // the append has completed: the block goes straight back (no vector: no allocation)
    if (h.staging) {
      std::lock_guard lock(lock_);
      give_staging(h.staging, h.capacity);
    }
    return;
  }
  held_bytes_ += h.staging ? h.capacity : h.bytes.size();
  holds_.push_back(std::move(h));
  if (held_bytes_ > kMaxHeldBytes || holds_.size() > kMaxHolds) synchronize();
}

void Queue::release(std::vector<Hold>& holds) {
  std::lock_guard lock(lock_);
  for (Hold& h : holds)
    if (h.staging) give_staging(h.staging, h.capacity);
  holds.clear();
}

std::vector<Queue::Hold> Queue::take_holds() {
  std::lock_guard lock(lock_);
  held_bytes_ = 0;
  // The list keeps its room (see the constructor), allocated here at a wait
  // rather than by a later launch's pack upload (a warm launch allocates nothing).
  std::vector<Hold> taken;
  taken.reserve(holds_.capacity());
  taken.swap(holds_);
  return taken;
}

void Queue::write(void* dst, const void* src, std::size_t bytes) {
  if (!bytes) return;
  std::lock_guard lock(lock_);
  Hold h;
  const void* from = nullptr;
  if (bytes <= kStageToDevice) {
    h.staging = take_staging(bytes, &h.capacity);
    std::memcpy(h.staging, src, bytes);
    from = h.staging;
  } else {
    // A private snapshot, so the caller may change its memory at once.
    h.bytes.assign(static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + bytes);
    from = h.bytes.data();
  }
  const ze::ze_result_t r = ze::api().zeCommandListAppendMemoryCopy(list_, dst, from, bytes, nullptr, 0, nullptr);
  if (r != ze::ZE_RESULT_SUCCESS && h.staging) give_staging(h.staging, h.capacity);
  ordered(r, "zeCommandListAppendMemoryCopy");
  hold(std::move(h));
}

void Queue::fill(void* dst, const void* pattern, std::size_t pattern_size, std::size_t bytes) {
  if (!bytes) return;
  if (pattern_size > device_.max_fill_pattern) {
    // Wider than the engine's fill patterns: the whole image as a copy.
    std::vector<unsigned char> image(bytes);
    for (std::size_t at = 0; at < bytes; at += pattern_size) std::memcpy(&image[at], pattern, pattern_size);
    write(dst, image.data(), bytes);
    return;
  }
  std::lock_guard lock(lock_);
  Hold h;
  h.bytes.assign(static_cast<const unsigned char*>(pattern), static_cast<const unsigned char*>(pattern) + pattern_size);
  ordered(ze::api().zeCommandListAppendMemoryFill(list_, dst, h.bytes.data(), pattern_size, bytes, nullptr, 0, nullptr),
          "zeCommandListAppendMemoryFill");
  hold(std::move(h));
}

void Queue::launch(ze::ze_kernel_handle_t kernel, std::uint32_t groups, const char* what, const std::string& name,
                   const char* after) {
  std::lock_guard lock(lock_);
  const ze::ze_group_count_t count{groups, 1, 1};
  const ze::ze_result_t r = ze::api().zeCommandListAppendLaunchKernel(list_, kernel, &count, nullptr, 0, nullptr);
  if (r != ze::ZE_RESULT_SUCCESS)
    throw BackendError("level_zero: zeCommandListAppendLaunchKernel of " + std::string(what) + name + after + " (" +
                       std::to_string(groups) + " groups) failed: " + ze::error_text(r));
  ordered(r, "zeCommandListAppendLaunchKernel");
}

void Queue::synchronize() {
  wait_timeout_s();  // a malformed TACK_WAIT_TIMEOUT_S is raised here, before the holds are taken
  std::lock_guard lock(lock_);
  std::vector<Hold> done = take_holds();
  if (asynchronous()) {
    const ze::ze_result_t r = ze::api().zeCommandListHostSynchronize(list_, wait_timeout_ns());
    if (r != ze::ZE_RESULT_SUCCESS) {
      // Unknown whether the queued copies have read their host memory: it stays held for the next wait.
      for (Hold& h : done) holds_.push_back(std::move(h));
      if (r == ze::ZE_RESULT_NOT_READY) {
        timed_out_ = true;
        throw_wait_timeout("level_zero", "a wait for the queued work", last_kernel_);
      }
      ze::check(r, "zeCommandListHostSynchronize");
    }
  }
  timed_out_ = false;
  release(done);
}

ze::ze_event_handle_t Queue::take_event() {
  if (free_events_.empty()) {
    const ze::Api& api = ze::api();
    ze::ze_event_pool_desc_t desc{ze::ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, ze::ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                  kEventsPerPool};
    ze::ze_event_pool_handle_t pool = nullptr;
    ze::ze_device_handle_t device = device_.device;
    ze::check(api.zeEventPoolCreate(device_.context, &desc, 1, &device, &pool), "zeEventPoolCreate");
    pools_.push_back(pool);
    for (std::uint32_t i = 0; i < kEventsPerPool; ++i) {
      ze::ze_event_desc_t ed{ze::ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, i, ze::ZE_EVENT_SCOPE_FLAG_HOST,
                             ze::ZE_EVENT_SCOPE_FLAG_HOST};
      ze::ze_event_handle_t e = nullptr;
      ze::check(api.zeEventCreate(pool, &ed, &e), "zeEventCreate");
      events_.push_back(e);
      free_events_.push_back(e);
    }
  }
  ze::ze_event_handle_t e = free_events_.back();
  free_events_.pop_back();
  return e;
}

void Queue::give_event(ze::ze_event_handle_t event) {
  std::lock_guard lock(lock_);
  // Reset for reuse; one that cannot be reset is not reused.
  if (ze::api().zeEventHostReset(event) == ze::ZE_RESULT_SUCCESS) free_events_.push_back(event);
}

// The wait half of async_marker() and of reads.
class ListMarker final : public WaitMarker {
 public:
  ListMarker(std::shared_ptr<Queue> queue, ze::ze_event_handle_t event, std::vector<Queue::Hold> holds)
      : queue_(std::move(queue)), event_(event), holds_(std::move(holds)) {}
  ~ListMarker() override {
    if (ze::exiting()) return;
    // The holds may be released only after the commands that read them: wait if no one has.
    if (!waited_ && ze::api().zeEventHostSynchronize(event_, wait_timeout_ns()) != ze::ZE_RESULT_SUCCESS) {
      std::lock_guard lock(queue_->lock_);  // back to the queue, for its next successful wait
      for (auto& h : holds_) queue_->holds_.push_back(std::move(h));
      return;
    }
    queue_->release(holds_);
    queue_->give_event(event_);
  }
  void wait() override {
    wait_timeout_s();  // raises a malformed TACK_WAIT_TIMEOUT_S
    const ze::ze_result_t r = ze::api().zeEventHostSynchronize(event_, wait_timeout_ns());
    if (r == ze::ZE_RESULT_NOT_READY)
      throw_wait_timeout("level_zero", "a wait for the queued work", queue_->last_kernel());
    ze::check(r, "zeEventHostSynchronize");
    waited_ = true;
  }

 private:
  std::shared_ptr<Queue> queue_;
  ze::ze_event_handle_t event_;
  std::vector<Queue::Hold> holds_;
  bool waited_ = false;
};

std::unique_ptr<WaitMarker> Queue::marker(const std::shared_ptr<Queue>& queue) {
  std::lock_guard lock(queue->lock_);
  ze::ze_event_handle_t event = queue->take_event();
  // Taken with the barrier appended under the same lock: every hold taken is before the barrier.
  std::vector<Hold> holds = queue->take_holds();
  const ze::ze_result_t r = ze::api().zeCommandListAppendBarrier(queue->list_, event, 0, nullptr);
  if (r != ze::ZE_RESULT_SUCCESS) {
    for (Hold& h : holds) queue->holds_.push_back(std::move(h));
    queue->free_events_.push_back(event);
    ze::check(r, "zeCommandListAppendBarrier");
  }
  return std::make_unique<ListMarker>(queue, event, std::move(holds));
}

void Queue::read(void* dst, const void* src, std::size_t bytes) {
  if (!bytes) return;
  void* staging = nullptr;
  std::size_t capacity = 0;
  std::unique_ptr<WaitMarker> mark;
  {
    std::lock_guard lock(lock_);
    // A small read lands in USM host memory: from pageable memory the driver would drain the list in the append.
    if (bytes <= kStageFromDevice) staging = take_staging(bytes, &capacity);
    const ze::ze_result_t r =
        ze::api().zeCommandListAppendMemoryCopy(list_, staging ? staging : dst, src, bytes, nullptr, 0, nullptr);
    if (r != ze::ZE_RESULT_SUCCESS && staging) give_staging(staging, capacity);
    ze::check(r, "zeCommandListAppendMemoryCopy");
    // The marker's barrier orders the copy before its event.
    mark = marker(shared_from_this());
  }
  try {
    mark->wait();  // outside the lock: other threads launch meanwhile
  } catch (const Error&) {
    // Unknown whether the copy has landed: the block stays held until a wait succeeds.
    if (staging) {
      std::lock_guard lock(lock_);
      holds_.push_back(Hold{staging, capacity, {}});
    }
    throw;
  }
  if (staging) {
    std::memcpy(dst, staging, bytes);
    std::lock_guard lock(lock_);
    give_staging(staging, capacity);
  }
}

}  // namespace tack::backends::level_zero
