// The queued GPU backends' one shape (cuda, hip, level_zero, opencl; reference:
// "Launches are queued", "Scalar arguments on the GPU", "Device reductions").
// GpuBackend owns what they do alike: the variant (program, scalar-pack layout
// and buffers, dispatch lock), allocation with its size check and zero fill,
// compile (build, layout, pack buffers, group size, from the kernel the
// pipeline lowered and the source its row emits), the launch (lock, upload the
// packs, bind every argument, __n__, enqueue), array reductions, launch-size
// checks and the waiting teardown. A backend supplies hooks: program build,
// buffers, limits, argument handles and enqueue, and which lock a dispatch
// holds. Metal (a new argument buffer per launch) and the
// CPU keep their own launch.
#pragma once

#include "abi/group_size.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/reductions/device_reductions.hpp"
#include "runtime/gpu/build_request.hpp"
#include "runtime/gpu/gpu_launch_params.hpp"
#include "runtime/gpu/gpu_layout.hpp"
#include "runtime/gpu/gpu_limits.hpp"
#include "runtime/waits/wait_deadline.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace tack::runtime {

inline constexpr auto kGpuGroup = static_cast<std::uint32_t>(abi::kGroupSize);

static_assert(sizeof(void*) == sizeof(std::uint64_t), "kernel arguments are bound as 8-byte handles");

// A backend's compiled program, its type erased (GpuBackendOf<Program> holds the typed one).
struct GpuProgram {
  virtual ~GpuProgram() = default;
};

struct GpuVariant final : CompiledVariant {
  std::unique_ptr<GpuProgram> program;
  GpuLayout layout;
  std::vector<std::unique_ptr<Buffer>> pack_buffers;  // one per pack array, allocated once
  std::uint32_t group = kGpuGroup;                    // work-items per group of every launch
  bool workgroup = false;
  // The pack buffers (and, where a driver sets arguments on the kernel, its argument state) are shared by every
  // dispatch of the variant: held from the pack upload until the launch is queued, so a launch never runs with
  // another thread's scalars (KernelVariant.dispatch_lock), unless the backend names one lock for all dispatches.
  mutable std::mutex dispatch;
  mutable std::vector<unsigned char> scratch;  // the host image of one pack array, under the dispatch lock
};

// One dispatch with its arguments bound: `groups` groups of `group` work-items.
struct GpuDispatch {
  GpuLaunchParams& args;
  std::uint64_t groups = 0;
  std::uint32_t group = 0;
  const std::string& kernel;  // the kernel's name
};

class GpuBackend : public Backend {
 public:
  GpuBackend(Capabilities caps, GpuLimits limits) : Backend(std::move(caps)), limits_(std::move(limits)) {}

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) final;
  std::shared_ptr<Buffer> allocate_in(std::string_view space, std::size_t bytes, bool zeroed) final;
  std::unique_ptr<CompiledVariant> compile(const CompileInput& input) final;
  void check_launch_size(const ir::Kernel& typed, std::int64_t count) const final;
  void launch(const Launch& l) final;
  bool reduce_device(const ArrayStorage& array, ReduceOp op, double* out) final;

 protected:
  // The hooks. The program the request asks for; erased by GpuBackendOf.
  virtual std::unique_ptr<GpuProgram> build_erased(const BuildRequest& request) = 0;
  // The most work-items per group the program runs.
  virtual std::size_t group_limit_erased(const GpuProgram& program) const = 0;
  // Queues the program with the bound arguments; the dispatch lock is held.
  virtual void enqueue_erased(const GpuProgram& program, const GpuDispatch& d) = 0;
  // Device memory of `bytes`, and the 8-byte handle a kernel argument of it is.
  virtual std::unique_ptr<Buffer> new_buffer(std::size_t bytes) = 0;
  // Memory of `bytes` in a memory space the device lists after its first (asked only for a listed one).
  virtual std::unique_ptr<Buffer> new_buffer_in(std::string_view space, std::size_t bytes);
  virtual std::uint64_t argument(const Buffer& buffer) const = 0;
  // The handle of a texture kept in the texture hardware (asked only where create_texture_image made one).
  virtual std::uint64_t texture_argument(const TextureImage& image) const;
  // The lock every dispatch holds instead of its variant's own, or null (Level Zero: the queue's, which also
  // guards the kernel's argument state).
  virtual std::recursive_mutex* shared_dispatch_lock() const { return nullptr; }
  // Held while argument addresses are read and the launch queued, so they stay put (cuda's relocation).
  virtual std::shared_lock<std::shared_mutex> hold_addresses() const { return {}; }
  // Where a wait's timeout finds the name of the kernel launched last, or null (the queue keeps it).
  virtual LastKernel* last_kernel() { return nullptr; }

  // The teardown every backend makes: waits for what is queued; a failed wait has no one to report to.
  void wait_at_teardown() noexcept;
  const GpuLimits& limits() const { return limits_; }

 private:
  // Uploads the packs and binds the arguments of a launch, then enqueues it.
  void dispatch(const GpuVariant& v, const Launch& l, std::uint64_t groups);

  GpuLimits limits_;
  DeviceReductions reductions_;
};

// The typed side of the hooks: a backend names its program type once and implements these over it.
template <class Program>
class GpuBackendOf : public GpuBackend {
 public:
  using GpuBackend::GpuBackend;

 protected:
  virtual std::unique_ptr<Program> build(const BuildRequest& request) = 0;
  virtual std::size_t group_limit(const Program& program) const = 0;
  virtual void enqueue(const Program& program, const GpuDispatch& d) = 0;

 private:
  struct Held final : GpuProgram {
    std::unique_ptr<Program> program;
  };
  static const Program& of(const GpuProgram& p) { return *static_cast<const Held&>(p).program; }

  std::unique_ptr<GpuProgram> build_erased(const BuildRequest& request) final {
    auto held = std::make_unique<Held>();
    held->program = build(request);
    return held;
  }
  std::size_t group_limit_erased(const GpuProgram& p) const final { return group_limit(of(p)); }
  void enqueue_erased(const GpuProgram& p, const GpuDispatch& d) final { enqueue(of(p), d); }
};

}  // namespace tack::runtime
