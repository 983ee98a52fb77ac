// The opencl backend's context and its one in-order command queue. Launches,
// writes and fills are enqueued and return; reads and synchronize() wait.
//
// Host writes are enqueued without blocking (clEnqueueWriteBuffer with
// CL_FALSE), which lets the driver read the host memory at any time until the
// command completes. The queue therefore copies the data into a staging vector
// it owns and holds that until the next wait: a blocking write would wait for
// every launch queued before it, so each dispatch's scalar-pack upload would
// drain the queue, and launches would no longer be queued. A write larger than
// kMaxStagedBytes blocks instead (copying it would cost about as much as the
// wait), and the holds are released early, with a wait, past kMaxHeldBytes or
// kMaxHolds.
//
// Waits are bounded by TACK_WAIT_TIMEOUT_S when it is set (runtime/waits/wait_deadline.hpp):
// a marker's execution status is polled, and a wait past the deadline raises
// BackendError naming the kernel last queued. The queue is then "stuck": its
// destructor abandons the context, queue and holds (leaks them) unless a later
// wait succeeds, because clFinish would block at exit for as long as the kernel runs.
#pragma once

#include "backends/opencl/opencl_device.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/waits/wait_deadline.hpp"
#include "runtime/waits/wait_marker.hpp"
#include "support/no_copy.hpp"

#include <atomic>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tack::backends::opencl {
using namespace tack::runtime;

class Queue : support::NoCopy {
 public:
  static constexpr std::size_t kMaxStagedBytes = std::size_t{64} << 20;
  static constexpr std::size_t kMaxHeldBytes = std::size_t{256} << 20;
  static constexpr std::size_t kMaxHolds = 1024;

  explicit Queue(DeviceInfo device);  // creates the context and the queue
  ~Queue();
  // Waits for what is queued unless a wait found the queue stuck; at process exit (see opencl_queue.cpp).
  void finish_at_exit();

  const DeviceInfo& device() const { return device_; }
  drivers::cl::cl_context context() const { return context_; }

  // A read-write buffer of at least one byte (OpenCL has no empty buffers).
  drivers::cl::cl_mem allocate(std::size_t bytes);
  // Released once the commands queued on it have completed (OpenCL keeps a buffer alive for the commands
  // that use it).
  void free(drivers::cl::cl_mem mem) noexcept;
  void write(drivers::cl::cl_mem mem, std::size_t offset, const void* src, std::size_t bytes);
  void fill(drivers::cl::cl_mem mem, const void* pattern, std::size_t pattern_size, std::size_t offset,
            std::size_t bytes);
  // Waits for everything queued before it, then copies.
  void read(drivers::cl::cl_mem mem, std::size_t offset, void* dst, std::size_t bytes);
  // A DeviceBuffer's operations (opencl_memory.cpp).
  void write_buffer(drivers::cl::cl_mem mem, std::size_t offset, const void* src, std::size_t bytes);
  void read_buffer(drivers::cl::cl_mem mem, std::size_t offset, void* dst, std::size_t bytes);
  void fill_buffer(drivers::cl::cl_mem mem, const void* element, std::size_t element_size, std::size_t count);
  // A device-side copy between two of its buffers, queued in order.
  void copy_buffer(drivers::cl::cl_mem from, drivers::cl::cl_mem to, std::size_t bytes);
  NativeMemory native_memory(drivers::cl::cl_mem mem, std::size_t bytes) const {
    return {"opencl", reinterpret_cast<std::uintptr_t>(mem), bytes};
  }
  // Enqueues a 1-D range of `global` work-items in groups of `local`; `name`
  // (which must outlive the queue: a variant's) is remembered for a wait's timeout.
  void launch(drivers::cl::cl_kernel kernel, std::size_t global, std::size_t local, const char* what,
              const std::string& name);
  void finish();
  // Enqueues a marker after everything queued so far (the asynchronous waits):
  // its wait() is clWaitForEvents, and it takes over the holds of the writes
  // before it, releasing them only once those have run. It keeps queue alive.
  static std::unique_ptr<WaitMarker> enqueue_marker(std::shared_ptr<Queue> queue);

  // Blocks until event has completed or failed; with TACK_WAIT_TIMEOUT_S set,
  // polls its status and throws BackendError at the deadline (the queue is then stuck).
  void await(drivers::cl::cl_event event, const char* what);
  bool stuck() const { return stuck_.load(); }

 private:
  // The holds taken before a wait; released once the wait returns.
  std::vector<std::vector<unsigned char>> take_holds();

  DeviceInfo device_;
  drivers::cl::cl_context context_ = nullptr;
  drivers::cl::cl_command_queue queue_ = nullptr;
  std::mutex holds_mutex_;
  std::vector<std::vector<unsigned char>> holds_;
  std::size_t held_bytes_ = 0;
  LastKernel last_;
  std::atomic<bool> stuck_{false};  // a wait timed out and none has succeeded since
};

// Registers the exit hook that finishes every live queue once more, after the first program built from
// source, so that it runs before the teardown of what the driver set up for that build (opencl_queue.cpp).
void finish_queues_at_exit_after_first_build();

}  // namespace tack::backends::opencl
