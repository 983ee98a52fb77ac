// The cuda backend: variants are modules built from the generated CUDA C (or
// loaded from cached PTX) with their scalar-pack buffers; launches, copies and
// fills are queued on the context's one stream and return, and a launch's
// error surfaces at the next wait (reference: CUDA; "Launches are queued";
// "Scalar arguments on the GPU").
#include "backends/cuda/cuda_backend.hpp"

#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_kernel.hpp"
#include "backends/cuda/cuda_memory.hpp"
#include "backends/cuda/cuda_texture.hpp"
#include "ir/check.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/gpu/gpu_backend.hpp"
#include "runtime/gpu/grid_launch.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/waits/wait_marker.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <array>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace {
namespace cu = cuda::driver;

// A blocking-sync event recorded on the stream: the waiting thread sleeps in the driver instead of spinning,
// and holds nothing another thread's launch needs.
class StreamMarker final : public WaitMarker {
 public:
  explicit StreamMarker(std::shared_ptr<Context> context) : context_(std::move(context)) {
    const cu::Api& api = cu::api();
    Context::Scope scope(*context_);
    cu::check(api.cuEventCreate(&event_, cu::CU_EVENT_BLOCKING_SYNC | cu::CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    if (const cu::CUresult r = api.cuEventRecord(event_, context_->stream()); r != cu::CUDA_SUCCESS) {
      api.cuEventDestroy_v2(event_);
      cu::check(r, "cuEventRecord");
    }
  }
  ~StreamMarker() override {
    try {
      Context::Scope scope(*context_);
      cu::api().cuEventDestroy_v2(event_);
    } catch (const Error&) {
    }
  }
  void wait() override { context_->wait_event(event_); }

 private:
  std::shared_ptr<Context> context_;
  cu::CUevent event_ = nullptr;
};

Capabilities cuda_capabilities(const cuda::DeviceInfo& d) {
  Capabilities c = backend_description("cuda").capabilities();
  c.supports_exportable_memory = d.virtual_memory && d.posix_fd_handles;
  c.supports_wrapped_memory = true;
  return c;
}

GpuLimits cuda_limits(const cuda::DeviceInfo& d) {
  const auto grid = static_cast<std::uint64_t>(d.max_grid_dim_x);
  // Blocks of whole warps, fewer threads where a kernel needs many registers; reductions fill each multiprocessor.
  return {.backend = "cuda",
          .device = d.name,
          .max_array_bytes = d.total_memory,
          .groups_word = "blocks",
          .items_word = "threads",
          .group_limit_why = "too many registers",
          .group_granule = 32,
          .max_launch = grid,
          .launch_limit_why = "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X",
          .max_reduction_groups = std::min(32u * static_cast<std::uint64_t>(d.multiprocessors), grid)};
}

class CudaBackend final : public GpuBackendOf<cuda::Module> {
 public:
  explicit CudaBackend(std::shared_ptr<Context> context)
      : GpuBackendOf(cuda_capabilities(context->device()), cuda_limits(context->device())),
        context_(std::move(context)) {}
  ~CudaBackend() override { wait_at_teardown(); }

  std::vector<std::pair<std::string, std::string>> about() const override {
    const cuda::DeviceInfo& d = context_->device();
    return {{"device", d.name},
            {"compute capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
            {"memory", std::to_string(d.total_memory >> 20) + " MiB"},
            {"driver",
             "CUDA " + std::to_string(d.driver_version / 1000) + "." + std::to_string(d.driver_version % 1000 / 10)}};
  }

  std::shared_ptr<Buffer> allocate_exportable(std::size_t bytes) override {
    check_array_bytes(limits(), bytes, "an exportable array");
    return DeviceBuffer::exportable(context_, bytes);
  }

  ExportedMemory export_memory(ArrayStorage& array) override {
    return static_cast<DeviceBuffer&>(*array.buffer).export_memory();
  }

  // Memory outside Tack must be this device's, with every byte of the array in one allocation.
  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    const cu::Api& api = cu::api();
    const cuda::DeviceInfo& d = context_->device();
    const auto ptr = static_cast<cu::CUdeviceptr>(address);
    {
      Context::Scope scope(*context_);
      int ordinal = -1;
      if (const cu::CUresult r = api.cuPointerGetAttribute(&ordinal, cu::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
          r != cu::CUDA_SUCCESS)
        throw InvalidArgument("array_from_ptr: " + address_text(ptr) +
                              " is not CUDA device memory (cuPointerGetAttribute: " + cu::error_text(r) + ")");
      if (ordinal != d.ordinal)
        throw InvalidArgument("array_from_ptr: " + address_text(ptr) + " is memory of CUDA device " +
                              std::to_string(ordinal) + ", not of this device (" + std::to_string(d.ordinal) + ", " +
                              d.name + ")");
      // Virtual-memory mappings of other libraries may not report a range; then the owner vouches for the size.
      cu::CUdeviceptr base = 0;
      std::size_t size = 0;
      if (api.cuMemGetAddressRange_v2(&base, &size, ptr) == cu::CUDA_SUCCESS && ptr - base + bytes > size)
        throw InvalidArgument("array_from_ptr: the allocation holding " + address_text(ptr) + " has " +
                              std::to_string(size - (ptr - base)) + " bytes from there, but the array needs " +
                              std::to_string(bytes));
    }
    return DeviceBuffer::wrap(context_, ptr, bytes, std::move(keep_alive));
  }

  // Textures live in the texture hardware. A shape past the device's 3D texture limits is sampled in software
  // rather than refused (the reference never falls back on CUDA and fails there instead).
  bool texture_in_hardware(const std::array<std::int64_t, 3>& shape) const override {
    const auto& limit = context_->device().max_texture3d;
    for (int a = 0; a < 3; ++a)
      if (shape[a] > limit[a]) return false;
    return true;
  }

  std::shared_ptr<TextureImage> create_texture_image(const std::array<std::int64_t, 3>& shape) override {
    return std::make_shared<cuda::TextureImage3D>(context_, shape);
  }

  void synchronize() override { context_->synchronize(); }
  std::unique_ptr<WaitMarker> async_marker() override { return std::make_unique<StreamMarker>(context_); }

 private:
  std::unique_ptr<cuda::Module> build(const BuildRequest& request) override {
    return cuda::build_module(context_, request);
  }
  // Fewer than 256 when the kernel needs many registers.
  std::size_t group_limit(const cuda::Module& m) const override { return m.group_limit(); }
  std::unique_ptr<Buffer> new_buffer(std::size_t bytes) override {
    return std::make_unique<DeviceBuffer>(context_, bytes);
  }
  std::unique_ptr<Buffer> new_buffer_in(std::string_view space, std::size_t bytes) override {
    if (space == "cuda_pinned") return DeviceBuffer::pinned(context_, bytes);
    TACK_CHECK(space == "cuda_managed");
    return DeviceBuffer::managed(context_, bytes);
  }
  std::uint64_t argument(const Buffer& b) const override { return static_cast<const DeviceBuffer&>(b).pointer(); }
  std::uint64_t texture_argument(const TextureImage& image) const override {
    return static_cast<const cuda::TextureImage3D&>(image).object();
  }
  // Array addresses stay put until the launch is queued (export_memory() moves memory exclusively).
  std::shared_lock<std::shared_mutex> hold_addresses() const override {
    return std::shared_lock(context_->relocation());
  }
  LastKernel* last_kernel() override { return &context_->last_kernel(); }
  void enqueue(const cuda::Module& m, const GpuDispatch& d) override {
    Context::Scope scope(*context_);
    cu::check(grid_launch(cu::api().cuLaunchKernel, m.function(), context_->stream(), d), "cuLaunchKernel");
  }

  std::shared_ptr<Context> context_;
};

}  // namespace

std::shared_ptr<Backend> make_cuda_backend(const DeviceOptions& options) {
  return std::make_shared<CudaBackend>(Context::open(options));
}

}  // namespace tack::backends::cuda
