// The device's one blocking stream and the event waits on it.
#include "backends/hip/hip_queue.hpp"

#include "backends/hip/hip_driver.hpp"

#include <tack/error.hpp>

namespace tack::backends::hip {
using namespace tack::runtime;
namespace hp = hip::driver;

DeviceScope::DeviceScope(int ordinal) {
  const hp::Api& api = hp::api();
  int current = -1;
  if (api.hipGetDevice(&current) == hp::hipSuccess && current == ordinal) return;
  hp::check(api.hipSetDevice(ordinal), "hipSetDevice");
  previous_ = current;
}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0) hp::api().hipSetDevice(previous_);
}

hp::hipStream_t Queue::stream() {
  std::call_once(once_, [&] {
    DeviceScope scope(ordinal_);
    hp::hipStream_t s = nullptr;
    hp::check(hp::api().hipStreamCreateWithFlags(&s, hp::hipStreamDefault), "hipStreamCreateWithFlags");
    stream_.store(s);
  });
  return stream_.load();
}

void Queue::wait() {
  if (!started()) return;  // nothing was ever queued
  const hp::Api& api = hp::api();
  DeviceScope scope(ordinal_);
  hp::hipEvent_t event = nullptr;
  hp::check(api.hipEventCreateWithFlags(&event, hp::hipEventBlockingSync | hp::hipEventDisableTiming),
            "hipEventCreateWithFlags");
  hp::hipError_t r = api.hipEventRecord(event, stream());
  try {
    if (r == hp::hipSuccess) r = wait_event(event);
  } catch (const Error&) {
    api.hipEventDestroy(event);
    throw;
  }
  api.hipEventDestroy(event);
  hp::check(r, "hipEventSynchronize");
}

hp::hipError_t Queue::wait_event(hp::hipEvent_t event) {
  const hp::Api& api = hp::api();
  if (wait_timeout_s() > 0)  // then hipEventSynchronize returns at once, with the error if any
    poll_until_done("hip", "a wait for the queued work", last_kernel_,
                    [&] { return api.hipEventQuery(event) != hp::hipErrorNotReady; });
  return api.hipEventSynchronize(event);
}

Queue::~Queue() {
  hp::hipStream_t s = stream_.load();
  if (!s) return;
  try {
    wait();
  } catch (const Error&) {
    // A failed wait at teardown has no one to report to.
  }
  try {
    DeviceScope scope(ordinal_);
    hp::api().hipStreamDestroy(s);
  } catch (const Error&) {
  }
}

StreamMarker::StreamMarker(std::shared_ptr<Queue> queue) : queue_(std::move(queue)) {
  const hp::Api& api = hp::api();
  DeviceScope scope(queue_->ordinal());
  hp::check(api.hipEventCreateWithFlags(&event_, hp::hipEventBlockingSync | hp::hipEventDisableTiming),
            "hipEventCreateWithFlags");
  if (const hp::hipError_t r = api.hipEventRecord(event_, queue_->stream()); r != hp::hipSuccess) {
    api.hipEventDestroy(event_);
    hp::check(r, "hipEventRecord");
  }
}

StreamMarker::~StreamMarker() {
  try {
    DeviceScope scope(queue_->ordinal());
    hp::api().hipEventDestroy(event_);
  } catch (const Error&) {
  }
}

void StreamMarker::wait() {
  DeviceScope scope(queue_->ordinal());
  hp::check(queue_->wait_event(event_), "hipEventSynchronize");
}

}  // namespace tack::backends::hip
