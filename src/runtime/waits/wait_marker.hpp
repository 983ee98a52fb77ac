// The backend side of the asynchronous waits (tack::sync_async,
// Device::synchronize_async, Array::to_host_async): a mark in a device's queue
// that a tack-wait worker thread can block on while the caller keeps running.
#pragma once

namespace tack::runtime {

// Taken at the call (Backend::async_marker), so it covers the launches queued
// before it and not those queued later. wait() blocks until they have run and
// throws a launch's error (a tack::Error). It may be called from any thread,
// once; a marker destroyed without a wait must still outlive the commands it
// keeps memory for, so a backend's destructor waits when it holds any.
class WaitMarker {
 public:
  virtual ~WaitMarker();
  virtual void wait() = 0;
};

}  // namespace tack::runtime
