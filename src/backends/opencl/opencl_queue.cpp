// The context, the in-order queue, and the staging of queued host writes.
#include "backends/opencl/opencl_queue.hpp"

#include "backends/opencl/opencl_driver.hpp"

#include <tack/error.hpp>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace tack::backends::opencl {
using namespace tack::runtime;
namespace cl = opencl::driver;
namespace {

// The queues alive, so that process exit can finish them while the driver still stands. A driver's own
// teardown at exit (PoCL's LLVM, for one) runs before that of Tack's devices, which were made earlier, and a
// driver thread still building or running a queued kernel then crashes the process: a program that returns
// from main right after a launch would end with a segfault. Exit hooks run in the reverse order of their
// registration, so the hook is registered after the driver sets itself up: once a queue exists, and again
// after the first build from source (PoCL sets up its compiler then). It waits for every queue not known
// to be stuck; running it twice costs nothing. This narrows the window without closing it: PoCL 3.1 builds
// a kernel's work-group code at its first launch, in its own thread, and the LLVM state that build sets up
// is torn down before this hook when the process exits during it (a program that exits right after the
// very first launch of a kernel PoCL has never built still crashes now and then).
std::mutex g_live_mutex;
std::set<Queue*>* g_live = new std::set<Queue*>;  // never destroyed: the exit hook may read it last

void finish_live_queues_at_exit() {
  std::lock_guard lock(g_live_mutex);
  for (Queue* q : *g_live) q->finish_at_exit();
}

// Registers the hook, once per `moment` (see above).
void hook_exit_once(std::once_flag& moment) {
  std::call_once(moment, [] { std::atexit(finish_live_queues_at_exit); });
}

void track(Queue* q) {
  static std::once_flag first_queue;
  hook_exit_once(first_queue);
  std::lock_guard lock(g_live_mutex);
  g_live->insert(q);
}

void untrack(Queue* q) {
  std::lock_guard lock(g_live_mutex);
  g_live->erase(q);
}

}  // namespace

void finish_queues_at_exit_after_first_build() {
  static std::once_flag first_build;
  hook_exit_once(first_build);
}

Queue::Queue(DeviceInfo device) : device_(std::move(device)) {
  const cl::Api& api = cl::api();
  cl::cl_int err = cl::CL_SUCCESS;
  context_ = api.clCreateContext(nullptr, 1, &device_.device, nullptr, nullptr, &err);
  cl::check(err, "clCreateContext");
  // In order (no CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE): each command sees the effects of those before it.
  queue_ = api.clCreateCommandQueue(context_, device_.device, 0, &err);
  if (err != cl::CL_SUCCESS) {
    api.clReleaseContext(context_);
    cl::check(err, "clCreateCommandQueue");
  }
  track(this);
}

void Queue::finish_at_exit() {
  if (!stuck_.load()) cl::api().clFinish(queue_);
}

Queue::~Queue() {
  untrack(this);
  if (stuck_.load()) {
    // A kernel still runs and may never end: clFinish (or releasing the queue) would block for as long.
    // The queue, the context and the memory queued writes read are abandoned instead.
    static_cast<void>(new std::vector<std::vector<unsigned char>>(std::move(holds_)));
    return;
  }
  const cl::Api& api = cl::api();
  api.clFinish(queue_);  // holds and buffers must outlive the commands that use them
  api.clReleaseCommandQueue(queue_);
  api.clReleaseContext(context_);
}

cl::cl_mem Queue::allocate(std::size_t bytes) {
  cl::cl_int err = cl::CL_SUCCESS;
  // Whole 32-bit words: an 8- or 16-bit atomic updates the word that contains its element.
  const std::size_t words = (bytes + 3) / 4;
  cl::cl_mem mem = cl::api().clCreateBuffer(context_, cl::CL_MEM_READ_WRITE, words ? words * 4 : 4, nullptr, &err);
  if (err != cl::CL_SUCCESS)
    throw BackendError("clCreateBuffer of " + std::to_string(bytes) + " bytes failed: " + cl::error_name(err) + " (" +
                       std::to_string(err) + ")");
  return mem;
}

void Queue::write(cl::cl_mem mem, std::size_t offset, const void* src, std::size_t bytes) {
  if (!bytes) return;
  const cl::Api& api = cl::api();
  if (bytes > kMaxStagedBytes) {
    cl::check(api.clEnqueueWriteBuffer(queue_, mem, cl::CL_TRUE, offset, bytes, src, 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
    return;
  }
  std::vector<unsigned char> staged(static_cast<const unsigned char*>(src),
                                    static_cast<const unsigned char*>(src) + bytes);
  bool drain = false;
  {
    // Enqueued under the lock, so a wait that takes the holds has this write before it in the queue.
    std::lock_guard lock(holds_mutex_);
    cl::check(api.clEnqueueWriteBuffer(queue_, mem, cl::CL_FALSE, offset, bytes, staged.data(), 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
    held_bytes_ += bytes;
    holds_.push_back(std::move(staged));  // moving a vector keeps its data where it is
    drain = held_bytes_ > kMaxHeldBytes || holds_.size() > kMaxHolds;
  }
  if (drain) finish();
}

void Queue::fill(cl::cl_mem mem, const void* pattern, std::size_t pattern_size, std::size_t offset, std::size_t bytes) {
  if (!bytes) return;
  // The pattern is copied by clEnqueueFillBuffer before it returns.
  cl::check(cl::api().clEnqueueFillBuffer(queue_, mem, pattern, pattern_size, offset, bytes, 0, nullptr, nullptr),
            "clEnqueueFillBuffer");
}

namespace {

// After a failed wait (a lost device, say) it is unknown whether the queued
// writes have read their staged data: it goes back to the queue's holds, freed
// at the next wait that succeeds or after the queue's last clFinish.
void keep_holds(std::vector<std::vector<unsigned char>>& done, std::mutex& mutex,
                std::vector<std::vector<unsigned char>>& holds, std::size_t& held_bytes) {
  std::lock_guard lock(mutex);
  for (auto& h : done) {
    held_bytes += h.size();
    holds.push_back(std::move(h));
  }
}

}  // namespace

void Queue::read(cl::cl_mem mem, std::size_t offset, void* dst, std::size_t bytes) {
  if (!bytes) return;
  // The blocking read below cannot time out: with a timeout the work before it is waited for first.
  if (wait_timeout_s() > 0) finish();
  std::vector<std::vector<unsigned char>> done = take_holds();
  // Blocking, on an in-order queue: it completes after every command before it.
  cl::cl_int err = cl::api().clEnqueueReadBuffer(queue_, mem, cl::CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr);
  if (err != cl::CL_SUCCESS) {
    keep_holds(done, holds_mutex_, holds_, held_bytes_);
    cl::check(err, "clEnqueueReadBuffer");
  }
}

void Queue::launch(cl::cl_kernel kernel, std::size_t global, std::size_t local, const char* what,
                   const std::string& name) {
  last_.set(name);
  cl::cl_int err = cl::api().clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  if (err != cl::CL_SUCCESS)
    throw BackendError(std::string("clEnqueueNDRangeKernel of ") + what + " (global " + std::to_string(global) +
                       ", local " + std::to_string(local) + ") failed: " + cl::error_name(err) + " (" +
                       std::to_string(err) + ")");
  // Some drivers start nothing until a flush; PoCL runs commands as they are enqueued.
  cl::check(cl::api().clFlush(queue_), "clFlush");
}

void Queue::finish() {
  const cl::Api& api = cl::api();
  const bool bounded = wait_timeout_s() > 0;  // may throw (a malformed value): before the holds are taken
  std::vector<std::vector<unsigned char>> done = take_holds();
  if (bounded) {
    // A marker after everything queued, polled; clFinish then returns at once (and reports any error).
    cl::cl_event marker = nullptr;
    cl::cl_int err = api.clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker);
    if (err == cl::CL_SUCCESS) err = api.clFlush(queue_);
    try {
      cl::check(err, "clEnqueueMarkerWithWaitList");
      await(marker, "a wait for the queued work");
    } catch (const Error&) {
      if (marker) api.clReleaseEvent(marker);
      keep_holds(done, holds_mutex_, holds_, held_bytes_);
      throw;
    }
    api.clReleaseEvent(marker);
  }
  cl::cl_int err = api.clFinish(queue_);
  if (err != cl::CL_SUCCESS) {
    keep_holds(done, holds_mutex_, holds_, held_bytes_);
    cl::check(err, "clFinish");
  }
  stuck_.store(false);
}

void Queue::await(cl::cl_event event, const char* what) {
  const cl::Api& api = cl::api();
  if (wait_timeout_s() <= 0) {
    cl::check(api.clWaitForEvents(1, &event), "clWaitForEvents");
    return;
  }
  try {
    poll_until_done("opencl", what, last_, [&] {
      cl::cl_int status = cl::CL_COMPLETE;
      const cl::cl_int err =
          api.clGetEventInfo(event, cl::CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
      return err != cl::CL_SUCCESS || status <= cl::CL_COMPLETE;  // done, or failed: clWaitForEvents says how
    });
  } catch (const BackendError&) {
    stuck_.store(true);
    throw;
  }
  cl::check(api.clWaitForEvents(1, &event), "clWaitForEvents");
}

namespace {

class EventMarker final : public WaitMarker {
 public:
  EventMarker(std::shared_ptr<Queue> queue, cl::cl_event event, std::vector<std::vector<unsigned char>> holds)
      : queue_(std::move(queue)), event_(event), holds_(std::move(holds)) {}
  ~EventMarker() override {
    // The holds may be freed only after the writes that read them: wait if no one has.
    if (!waited_) {
      try {
        if (queue_->stuck()) throw BackendError("opencl: a wait of this queue timed out");  // not a second timeout
        queue_->await(event_, "a wait for the queued work");
      } catch (const Error&) {
        // Past the deadline the writes may still read the holds: they are abandoned, not freed.
        if (queue_->stuck()) static_cast<void>(new std::vector<std::vector<unsigned char>>(std::move(holds_)));
      }
    }
    cl::api().clReleaseEvent(event_);
  }
  void wait() override {
    // An error in a command before the marker shows as an error status of the wait list.
    // After a failed wait the holds stay, and the destructor waits again before freeing them.
    queue_->await(event_, "an asynchronous wait for the queued work");
    waited_ = true;
    holds_.clear();
  }

 private:
  std::shared_ptr<Queue> queue_;
  cl::cl_event event_;
  std::vector<std::vector<unsigned char>> holds_;
  bool waited_ = false;
};

}  // namespace

std::unique_ptr<WaitMarker> Queue::enqueue_marker(std::shared_ptr<Queue> queue) {
  const cl::Api& api = cl::api();
  // Taken before the marker is enqueued, as in finish(): every write whose hold is taken is before the marker.
  std::vector<std::vector<unsigned char>> holds = queue->take_holds();
  cl::cl_event event = nullptr;
  const char* call = "clEnqueueMarkerWithWaitList";
  cl::cl_int err = api.clEnqueueMarkerWithWaitList(queue->queue_, 0, nullptr, &event);
  // Flushed so the marker is reached without another call on this queue.
  if (err == cl::CL_SUCCESS) {
    call = "clFlush";
    err = api.clFlush(queue->queue_);
  }
  if (err != cl::CL_SUCCESS) {
    // No marker to free them after: the holds go back to the queue, for its next wait.
    keep_holds(holds, queue->holds_mutex_, queue->holds_, queue->held_bytes_);
    if (event) api.clReleaseEvent(event);
    cl::check(err, call);
  }
  return std::make_unique<EventMarker>(std::move(queue), event, std::move(holds));
}

std::vector<std::vector<unsigned char>> Queue::take_holds() {
  std::lock_guard lock(holds_mutex_);
  held_bytes_ = 0;
  return std::exchange(holds_, {});
}

}  // namespace tack::backends::opencl
