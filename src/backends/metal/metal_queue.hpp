// The metal backend's one command queue (reference: Metal, Launch; "Launches
// are queued"; "How each backend queues and waits"). Launches are encoded into
// the open command buffer under the batch lock and return; the buffer is
// committed every kBatch launches, with at most kInFlight committed ones
// outstanding, so a host that launches faster than the GPU runs is held back
// instead of queueing without bound. A wait commits the open buffer and waits
// on every committed one; a command buffer's error surfaces there, at the next
// host access, not at the launch's call. Each launch owns what it reads until
// its command buffer completes (Encoding::owned and holds).
#pragma once

#include "runtime/waits/wait_deadline.hpp"
#include "runtime/waits/wait_marker.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

namespace tack::backends::metal {
using namespace tack::runtime;

class Device;
struct Encoding;

class Queue {
 public:
  static constexpr int kBatch = 64;    // launches per command buffer (_BATCH)
  static constexpr int kInFlight = 4;  // committed command buffers outstanding at most (_IN_FLIGHT)

  // A new queue on `device`, registered among the live queues (synchronize_all).
  static std::shared_ptr<Queue> open(std::shared_ptr<Device> device);
  // Waits for everything queued; errors are dropped (no one to report to at teardown).
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  const std::shared_ptr<Device>& device() const { return device_; }

  // Encodes one launch (or blit) into the open command buffer under the batch
  // lock: body makes and ends its own encoder on encoding.command_buffer. With
  // complete_before_return (a launch that binds memory handed outside Tack, a
  // reduction that reads its result), commits and waits before returning.
  void encode(const std::function<void(Encoding&)>& body, bool complete_before_return = false);

  // Commits the open command buffer and waits for every committed one; throws
  // BackendError with the first command-buffer error since the last wait.
  void synchronize();

  // A mark covering the launches encoded so far (the open buffer is committed
  // now): its wait() blocks on those command buffers (_CommandBufferMarker).
  std::unique_ptr<WaitMarker> marker();

  // The kernel last encoded, named when a wait runs past TACK_WAIT_TIMEOUT_S.
  LastKernel& last_kernel();

  struct State;  // shared with completion handlers, which may run after the queue is gone

 private:
  explicit Queue(std::shared_ptr<Device> device);
  void commit_locked();

  std::shared_ptr<Device> device_;
  std::shared_ptr<State> state_;
  std::mutex batch_;  // the open command buffer and its count
};

// Waits for every live metal queue (_synchronize_all): what a MetalBuffer does
// before the host touches its shared memory, since any backend's queued launch
// may use it.
void synchronize_all();

}  // namespace tack::backends::metal
