// The level_zero backend's one queue (reference: Level Zero; "How each backend
// queues and waits, as measured"): an asynchronous immediate command list to
// which every launch, fill and copy is appended, each followed by a barrier
// that keeps program order. Barriers rather than an in-order list, because on
// Intel's driver (25.05) an in-order list cost about 100-130 µs of device time
// per kernel and a barrier about 5. A driver without
// zeCommandListHostSynchronize (API 1.6) gets a synchronous list instead,
// every append completing at once.
//
// The list and each kernel's argument state are shared by every dispatch and
// Level Zero forbids using them from two threads at once: the reentrant
// launch lock is held around every append (launches, reductions, host copies)
// and guards the host staging pool and the holds.
//
// Host copies to the device up to 16 MiB and from it up to 64 KiB go through
// pooled USM host memory, because from pageable memory Intel's driver does not
// return from appending one (to the device up to 4 MiB, from it up to 1 KiB)
// until the list drains, which made each launch's scalar upload wait for the
// kernels before it. Host memory a queued copy or fill reads (a staging block,
// a private snapshot, a fill pattern) is held until the next wait, which comes
// early past kMaxHolds objects or kMaxHeldBytes. Reads append a copy and a
// marker under the lock and wait on the marker's event outside it, so other
// threads launch meanwhile.
#pragma once

#include "backends/level_zero/level_zero_device.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/waits/wait_deadline.hpp"
#include "runtime/waits/wait_marker.hpp"
#include "support/no_copy.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace tack::backends::level_zero {
using namespace tack::runtime;

class Queue : public std::enable_shared_from_this<Queue>, support::NoCopy {
 public:
  static constexpr std::size_t kStageToDevice = std::size_t{16} << 20;
  static constexpr std::size_t kStageFromDevice = std::size_t{64} << 10;
  static constexpr std::size_t kMaxHeldBytes = std::size_t{256} << 20;
  static constexpr std::size_t kMaxHolds = 1024;

  explicit Queue(DeviceInfo device);  // creates the command list
  ~Queue();

  const DeviceInfo& device() const { return device_; }
  bool asynchronous() const { return device_.host_synchronize; }
  std::recursive_mutex& launch_lock() const { return lock_; }

  void* allocate(std::size_t bytes);
  // After the work queued so far: zeMemFreeExt(DEFER_FREE) where the driver has it, else a wait, then zeMemFree.
  void free(void* ptr) noexcept;

  void write(void* dst, const void* src, std::size_t bytes);
  void fill(void* dst, const void* pattern, std::size_t pattern_size, std::size_t bytes);
  // Waits (outside the lock) for everything queued before it, then copies.
  void read(void* dst, const void* src, std::size_t bytes);
  // The same for a DeviceBuffer's allocation (level_zero_memory.cpp).
  void write_buffer(void* ptr, std::size_t offset, const void* src, std::size_t bytes);
  void read_buffer(void* ptr, std::size_t offset, void* dst, std::size_t bytes);
  void fill_buffer(void* ptr, const void* element, std::size_t element_size, std::size_t count);
  // A device-side copy between two of its allocations, ordered like a launch.
  void copy_buffer(void* from, void* to, std::size_t bytes);
  // Fills a texture's image from a device allocation, ordered like a launch (level_zero_texture.cpp).
  void copy_to_image(drivers::ze::ze_image_handle_t image, const void* from);
  // Destroys a module's kernel and the module (level_zero_kernel.cpp), unless the driver is gone at exit.
  void unload(drivers::ze::ze_module_handle_t module, drivers::ze::ze_kernel_handle_t kernel) noexcept;
  NativeMemory native_memory(void* ptr, std::size_t bytes) const {
    return {"level_zero", reinterpret_cast<std::uintptr_t>(ptr), bytes};
  }
  // The kernel last queued, named when a wait runs past TACK_WAIT_TIMEOUT_S (the driver's own timeout).
  LastKernel& last_kernel() { return last_kernel_; }
  // Appends a launch and its barrier; the caller holds the launch lock and has set the kernel's arguments.
  // `what`, `name` and `after` make the error's words ("kernel '" NAME "'"), joined only on failure,
  // so a launch allocates no message.
  void launch(drivers::ze::ze_kernel_handle_t kernel, std::uint32_t groups, const char* what, const std::string& name,
              const char* after = "");
  // zeCommandListHostSynchronize; raises a queued command's error.
  void synchronize();
  // A barrier signalling a host-visible event from the queue's pools: its wait() is zeEventHostSynchronize, and
  // it takes over the holds before it, released once they have run. It keeps the queue alive.
  static std::unique_ptr<WaitMarker> marker(const std::shared_ptr<Queue>& queue);

 private:
  struct Hold {
    void* staging = nullptr;  // a pooled USM host block, or
    std::size_t capacity = 0;
    std::vector<unsigned char> bytes;  // a private snapshot
  };
  friend class ListMarker;

  void ordered(drivers::ze::ze_result_t r, const char* call);  // checks an append, then appends its barrier
  void* take_staging(std::size_t bytes, std::size_t* capacity);
  void give_staging(void* block, std::size_t capacity);
  void hold(Hold h);
  void release(std::vector<Hold>& holds);
  std::vector<Hold> take_holds();
  drivers::ze::ze_event_handle_t take_event();
  void give_event(drivers::ze::ze_event_handle_t event);

  DeviceInfo device_;
  drivers::ze::ze_command_list_handle_t list_ = nullptr;
  mutable std::recursive_mutex lock_;
  std::multimap<std::size_t, void*> staging_;  // free blocks by capacity
  std::vector<Hold> holds_;
  std::size_t held_bytes_ = 0;
  std::vector<drivers::ze::ze_event_pool_handle_t> pools_;
  std::vector<drivers::ze::ze_event_handle_t> events_, free_events_;
  LastKernel last_kernel_;
  bool timed_out_ = false;  // the last synchronize() ran past TACK_WAIT_TIMEOUT_S (under lock_)
};

}  // namespace tack::backends::level_zero
