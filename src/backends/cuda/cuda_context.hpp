// The cuda backend's context and its one stream (reference: CUDA,
// Initialization and Launch). A context already current on the creating thread
// is adopted (an embedding application made it); otherwise the device's primary
// context is retained, the one the CUDA runtime and the libraries on it share,
// so Tack's launches and theirs use the same handles. Only a retained primary
// context is released, when the last backend, buffer and image on it are gone.
// Tack never makes its context current beyond one call, so a second device made
// on the same thread retains the primary context again rather than adopting it.
//
// Unlike the reference, every entry point makes the context current on the
// calling thread for the call (Scope) and restores what was current before, so
// any thread may dispatch without calling cuCtxSetCurrent first, and an
// application's own current context is left as it was.
#pragma once

#include "drivers/cuda_api.hpp"
#include "runtime/waits/wait_deadline.hpp"
#include "support/no_copy.hpp"

#include <tack/device.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace tack::backends::cuda {
using namespace tack::runtime;

struct DeviceInfo {
  drivers::cu::CUdevice device = 0;
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  std::int64_t max_grid_dim_x = 0;  // blocks in one launch
  int multiprocessors = 1;
  int max_threads_per_block = 0;
  int max_shared_per_block = 0;
  std::size_t total_memory = 0;
  bool memory_pools = false;  // cuMemAllocAsync works; false on TCC-mode GPUs
  bool virtual_memory = false;
  bool posix_fd_handles = false;                // virtual memory exportable as a POSIX file descriptor
  std::array<std::int64_t, 3> max_texture3d{};  // width, height, depth
  int driver_version = 0;                       // e.g. 13000
};

class Context : support::NoCopy {
 public:
  // Device `ordinal` (option "device", else TACK_CUDA_DEVICE, else 0): adopts the
  // calling thread's current context when it belongs to that device and is not
  // its primary context, else retains the primary context. Throws BackendUnavailable without a driver or
  // device, InvalidArgument for an ordinal out of range.
  static std::shared_ptr<Context> open(const DeviceOptions& options);
  ~Context();

  const DeviceInfo& device() const { return info_; }
  drivers::cu::CUcontext handle() const { return context_; }
  bool owned() const { return owned_; }
  // The context's one stream, made on first use: every launch, copy and fill goes through it, in order.
  drivers::cu::CUstream stream();
  // Unloads a module (cuda_kernel.cpp); a driver already gone at process exit took it with it.
  void unload(drivers::cu::CUmodule module, drivers::cu::CUfunction function) noexcept;

  // Makes the context current on this thread for the scope's life (cheap when it already is).
  class Scope : support::NoCopy {
   public:
    explicit Scope(const Context& c);
    ~Scope();

   private:
    bool pushed_ = false;
  };

  // Stream-ordered memory. Without memory pools, cuMemAlloc, and a dropped
  // buffer waits in a list until the stream is idle (cuMemFree would wait for
  // the whole device), freed at the next allocation or synchronize().
  drivers::cu::CUdeviceptr allocate(std::size_t bytes);
  void free(drivers::cu::CUdeviceptr ptr) noexcept;

  // Waits for the stream; raises the first error of a queued launch (BackendError). With
  // TACK_WAIT_TIMEOUT_S set, polls cuStreamQuery and raises BackendError at the deadline.
  void synchronize();
  // Waits for an event recorded on the stream, bounded the same way (cuEventQuery).
  void wait_event(drivers::cu::CUevent event);
  // The kernel last queued on the stream, named by a wait that times out.
  LastKernel& last_kernel() { return last_kernel_; }

  // Held shared by whatever reads a buffer's device address and queues work on it (launches, copies, fills),
  // and exclusively while export_memory() moves a buffer to another address, so no work lands in the old one.
  std::shared_mutex& relocation() { return relocation_; }

 private:
  Context(DeviceInfo info, drivers::cu::CUcontext context, bool owned);
  void configure_pool();
  void free_dropped_if_idle();

  DeviceInfo info_;
  drivers::cu::CUcontext context_ = nullptr;
  bool owned_ = false;
  std::once_flag stream_once_;
  std::atomic<drivers::cu::CUstream> stream_{nullptr};
  std::mutex dropped_mutex_;
  std::vector<drivers::cu::CUdeviceptr> dropped_;
  std::shared_mutex relocation_;
  LastKernel last_kernel_;
};

// What the device's capabilities are (the reference's table for CUDA).
Capabilities capabilities(const DeviceInfo& d);

}  // namespace tack::backends::cuda
