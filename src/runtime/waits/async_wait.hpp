// The asynchronous waits behind tack::sync_async, Device::synchronize_async
// and Array::to_host_async: a mark taken in each device's queue at the call,
// and a small pool of "tack-wait" threads that block on it, so the caller (an
// event loop) keeps running while the device works.
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/waits/wait_marker.hpp"

#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <vector>

namespace tack::runtime {

// What is left to wait for after the call. Backends without a marker (their
// launches have run when launch() returns: cpu, interp) are waited for inline
// when the mark is taken, so their error, if any, is already in `error`.
struct Mark {
  std::vector<std::unique_ptr<WaitMarker>> markers;
  std::vector<std::shared_ptr<Backend>> backends;  // kept alive until the wait is done
  std::exception_ptr error;                        // the first failure, delivered after every wait
};

Mark take_mark(const std::vector<std::shared_ptr<Backend>>& backends);

// Calls then(the mark's first error, or nullptr) once every marker has been
// waited for: in a tack-wait thread, or before returning when nothing is left
// to wait for (then the wait was inline and a worker would only add latency).
void after_mark(Mark mark, std::function<void(std::exception_ptr)> then);

// The future of after_mark with nothing to do after the wait.
std::future<void> wait_async(const std::vector<std::shared_ptr<Backend>>& backends);

// Runs task in one of the tack-wait threads (started on first use, joined at
// exit after the tasks already submitted have run). task must not throw.
void run_in_wait_thread(std::function<void()> task);

}  // namespace tack::runtime
