// The metal backend's command queue: batches of command buffers, the in-flight
// limit, waits and their errors, and the list of live queues.
#include "backends/metal/metal_queue.hpp"

#include "backends/metal/metal_device.hpp"
#include "backends/metal/metal_objc.h"

#include <tack/error.hpp>

#include <algorithm>
#include <deque>
#include <semaphore>
#include <string>
#include <vector>

namespace tack::backends::metal {
using namespace tack::runtime;

using Holds = std::vector<std::shared_ptr<const void>>;

struct Queue::State {
  id<MTLCommandQueue> queue;
  // Taken when a command buffer is committed, given back by its completion handler.
  std::counting_semaphore<Queue::kInFlight> in_flight{Queue::kInFlight};

  // The open command buffer, under Queue::batch_.
  id<MTLCommandBuffer> open;
  NSMutableArray* owned;
  std::shared_ptr<Holds> holds;
  int launches = 0;

  // Committed command buffers not yet seen complete, oldest first, and the first error among those that were.
  std::mutex committed_mutex;
  std::deque<id<MTLCommandBuffer>> committed;
  std::string error;
  LastKernel last_kernel;

  // Drops the completed buffers from the front, keeping the first error (under committed_mutex). A queue runs
  // its command buffers in commit order, so the front completes first.
  void prune_locked() {
    while (!committed.empty() && committed.front().status >= MTLCommandBufferStatusCompleted) {
      id<MTLCommandBuffer> done = committed.front();
      if (done.status == MTLCommandBufferStatusError && error.empty()) {
        NSError* e = done.error;
        error = std::string("metal: a command buffer failed: ") +
                (e ? e.localizedDescription.UTF8String : "no error description");
      }
      committed.pop_front();
    }
  }

  // Waits for `buffers`, then reports (and clears) the first error seen so far.
  void wait_for(const std::vector<id<MTLCommandBuffer>>& buffers) {
    // waitUntilCompleted takes no timeout: with TACK_WAIT_TIMEOUT_S set, each buffer's status is polled instead.
    for (id<MTLCommandBuffer> b : buffers) {
      if (wait_timeout_s() > 0)
        poll_until_done("metal", "a wait for the queued work", last_kernel,
                        [&] { return b.status >= MTLCommandBufferStatusCompleted; });
      else
        [b waitUntilCompleted];
    }
    std::string first;
    {
      std::lock_guard lock(committed_mutex);
      prune_locked();
      first.swap(error);
    }
    if (!first.empty()) throw BackendError(first);
  }

  std::vector<id<MTLCommandBuffer>> snapshot() {
    std::lock_guard lock(committed_mutex);
    return {committed.begin(), committed.end()};
  }
};

namespace {

std::mutex g_live_mutex;
std::vector<std::weak_ptr<Queue>> g_live;

// The mark is the committed command buffers at the call: a later launch is not waited for.
class CommandBufferMarker final : public WaitMarker {
 public:
  CommandBufferMarker(std::shared_ptr<Queue::State> state, std::vector<id<MTLCommandBuffer>> buffers)
      : state_(std::move(state)), buffers_(std::move(buffers)) {}
  void wait() override {
    @autoreleasepool {
      state_->wait_for(buffers_);
    }
  }

 private:
  std::shared_ptr<Queue::State> state_;
  std::vector<id<MTLCommandBuffer>> buffers_;
};

}  // namespace

Queue::Queue(std::shared_ptr<Device> device) : device_(std::move(device)), state_(std::make_shared<State>()) {}

std::shared_ptr<Queue> Queue::open(std::shared_ptr<Device> device) {
  @autoreleasepool {
    std::shared_ptr<Queue> q(new Queue(std::move(device)));
    q->state_->queue = [q->device_->objects().device newCommandQueue];
    if (!q->state_->queue) throw BackendUnavailable("metal: " + q->device_->info().name + " made no command queue");
    std::lock_guard lock(g_live_mutex);
    std::erase_if(g_live, [](const std::weak_ptr<Queue>& w) { return w.expired(); });
    g_live.push_back(q);
    return q;
  }
}

Queue::~Queue() {
  try {
    synchronize();
  } catch (const Error&) {
    // A failed wait at teardown has no one to report to.
  }
}

void Queue::commit_locked() {
  State& s = *state_;
  if (!s.open) return;
  id<MTLCommandBuffer> buffer = s.open;
  std::shared_ptr<Holds> holds = std::move(s.holds);
  NSMutableArray* owned = s.owned;
  s.open = nil;
  s.owned = nil;
  s.launches = 0;
  // Past kInFlight committed buffers the launching thread waits here, under the batch lock, for the oldest.
  s.in_flight.acquire();
  std::shared_ptr<State> state = state_;
  [buffer addCompletedHandler:^(id<MTLCommandBuffer>) {
    holds->clear();  // the launches' arrays and images may go now
    (void)owned;     // their argument and uniform buffers go with this block
    state->in_flight.release();
  }];
  [buffer commit];
  std::lock_guard lock(s.committed_mutex);
  s.prune_locked();
  s.committed.push_back(buffer);
}

void Queue::encode(const std::function<void(Encoding&)>& body, bool complete_before_return) {
  @autoreleasepool {
    {
      std::lock_guard lock(batch_);
      State& s = *state_;
      if (!s.open) {
        // Retained references (the default): the command buffer also keeps every resource bound to it.
        s.open = [s.queue commandBuffer];
        if (!s.open)
          throw BackendError("metal: the command queue of " + device_->info().name + " gave no command buffer");
        s.owned = [NSMutableArray array];
        s.holds = std::make_shared<Holds>();
      }
      Encoding e{device_->objects().device, s.open, s.owned, s.holds.get()};
      body(e);
      if (++s.launches >= kBatch || complete_before_return) commit_locked();
    }
    if (complete_before_return) synchronize();
  }
}

LastKernel& Queue::last_kernel() { return state_->last_kernel; }

void Queue::synchronize() {
  @autoreleasepool {
    {
      std::lock_guard lock(batch_);
      commit_locked();
    }
    state_->wait_for(state_->snapshot());
  }
}

std::unique_ptr<WaitMarker> Queue::marker() {
  @autoreleasepool {
    {
      std::lock_guard lock(batch_);
      commit_locked();
    }
    return std::make_unique<CommandBufferMarker>(state_, state_->snapshot());
  }
}

void synchronize_all() {
  std::vector<std::shared_ptr<Queue>> live;
  {
    std::lock_guard lock(g_live_mutex);
    for (const std::weak_ptr<Queue>& w : g_live)
      if (std::shared_ptr<Queue> q = w.lock()) live.push_back(std::move(q));
  }
  for (const std::shared_ptr<Queue>& q : live) q->synchronize();
}

}  // namespace tack::backends::metal
