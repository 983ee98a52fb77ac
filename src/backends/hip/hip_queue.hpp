// The hip backend's queue (reference: HIP, Launch; "How each backend queues and
// waits, as measured"). HIP has no context object to hold a stream, so the one
// stream belongs to the device: a blocking stream (hipStreamDefault) made on
// first use, so it stays ordered with the null stream. Every launch, copy and
// fill is queued on it and returns. Waits are on an event recorded after the
// queued work (hipEventBlockingSync, so the waiting thread sleeps), never
// hipStreamSynchronize: ROCm 7.1's stream synchronize holds the stream, so
// another thread's launch on it took the whole wait (350 ms, against 60 us
// waiting on an event).
#pragma once

#include "drivers/hip_api.hpp"
#include "runtime/waits/wait_deadline.hpp"
#include "runtime/waits/wait_marker.hpp"
#include "support/no_copy.hpp"

#include <atomic>
#include <memory>
#include <mutex>

namespace tack::backends::hip {
using namespace tack::runtime;

// Makes device `ordinal` current on this thread for the scope's life and restores the previous one (HIP's
// current device is per thread, so any thread may call Tack).
class DeviceScope : support::NoCopy {
 public:
  explicit DeviceScope(int ordinal);
  ~DeviceScope();

 private:
  int previous_ = -1;  // -1: unchanged
};

class Queue : support::NoCopy {
 public:
  explicit Queue(int ordinal) : ordinal_(ordinal) {}
  ~Queue();  // waits for the queued work, then destroys the stream; errors are ignored (exit)

  int ordinal() const { return ordinal_; }
  drivers::hip::hipStream_t stream();
  bool started() const { return stream_.load() != nullptr; }
  // Waits for everything queued so far on an event; raises a queued launch's error (BackendError).
  void wait();
  // Waits for an event recorded on the stream: hipEventSynchronize, or with TACK_WAIT_TIMEOUT_S set,
  // hipEventQuery polled until the deadline (then BackendError naming the kernel last queued).
  drivers::hip::hipError_t wait_event(drivers::hip::hipEvent_t event);
  LastKernel& last_kernel() { return last_kernel_; }

 private:
  int ordinal_;
  std::once_flag once_;
  std::atomic<drivers::hip::hipStream_t> stream_{nullptr};
  LastKernel last_kernel_;
};

// A blocking-sync event recorded on the queue's stream at construction (Backend::async_marker, and every wait).
class StreamMarker final : public WaitMarker {
 public:
  explicit StreamMarker(std::shared_ptr<Queue> queue);
  ~StreamMarker() override;
  void wait() override;

 private:
  std::shared_ptr<Queue> queue_;
  drivers::hip::hipEvent_t event_ = nullptr;
};

}  // namespace tack::backends::hip
