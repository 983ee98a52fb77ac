// The level_zero backend: variants are modules built from the generated OpenCL
// C (or loaded from the cached native binary) with their scalar-pack buffers;
// launches, copies and fills are appended to the one immediate command list and
// return, and a launch's error surfaces at the next wait (reference: Level
// Zero; "Launches are queued"; "Scalar arguments on the GPU").
#include "backends/level_zero/level_zero_backend.hpp"

#include "backends/level_zero/level_zero_device.hpp"
#include "backends/level_zero/level_zero_driver.hpp"
#include "backends/level_zero/level_zero_kernel.hpp"
#include "backends/level_zero/level_zero_memory.hpp"
#include "backends/level_zero/level_zero_queue.hpp"
#include "backends/level_zero/level_zero_texture.hpp"
#include "runtime/gpu/gpu_backend.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <array>

namespace tack::backends::level_zero {
using namespace tack::runtime;
namespace {
namespace ze = level_zero::driver;

GpuLimits level_zero_limits(const level_zero::DeviceInfo& d) {
  return {.backend = "level_zero",
          .device = d.name,
          .max_array_bytes = d.max_mem_alloc,
          .allocation_limit = "maxMemAllocSize",
          .group_limit_why = "maxGroupSizeX, maxTotalGroupSize",
          .parallel_group = d.group_size(),
          .max_launch = d.max_group_count_x,
          .launch_limit_why = "maxGroupCountX",
          .max_reduction_groups = std::min<std::uint64_t>(4096, std::max<std::uint32_t>(1, d.max_group_count_x))};
}

class LevelZeroBackend final : public GpuBackendOf<level_zero::Module> {
 public:
  explicit LevelZeroBackend(level_zero::DeviceInfo device)
      : GpuBackendOf(level_zero::capabilities(device), level_zero_limits(device)),
        queue_(std::make_shared<Queue>(std::move(device))) {}

  // A texture is kept in a 3D image where the device has samplers and the shape fits maxImageDims3D
  // (images_fit); otherwise the kernel samples its f32 copy in software. Decided here, before the variant key,
  // from the queries read at initialization, so tack::inspect on the device shows what dispatch compiles.
  bool texture_in_hardware(const std::array<std::int64_t, 3>& shape) const override {
    return level_zero::images_fit(queue_->device(), shape);
  }
  std::shared_ptr<TextureImage> create_texture_image(const std::array<std::int64_t, 3>& shape) override {
    return std::make_shared<level_zero::TextureImage3D>(queue_, shape);
  }

  void synchronize() override { queue_->synchronize(); }
  std::vector<std::pair<std::string, std::string>> about() const override {
    const level_zero::DeviceInfo& d = queue_->device();
    // ZE_MAKE_VERSION: the major version in the high 16 bits.
    return {{"device", d.name},
            {"device id", d.device_arg()},
            {"driver", std::to_string(d.driver_version)},
            {"API", std::to_string(d.api_version >> 16) + "." + std::to_string(d.api_version & 0xffff)}};
  }
  std::unique_ptr<WaitMarker> async_marker() override { return Queue::marker(queue_); }

  // Memory outside Tack is USM device or shared memory of this backend's context and device (a shared allocation
  // made for no device in particular included), with every byte of the array in one allocation. Host USM and
  // other contexts' memory are refused: zeMemGetAllocProperties reports the latter as unknown.
  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    const ze::Api& api = ze::api();
    const level_zero::DeviceInfo& d = queue_->device();
    auto* ptr = reinterpret_cast<void*>(address);
    const std::string what = "array_from_ptr: " + address_text(address);
    ze::ze_memory_allocation_properties_t props{ze::ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, nullptr, 0, 0, 0};
    ze::ze_device_handle_t owner = nullptr;
    ze::check(api.zeMemGetAllocProperties(d.context, ptr, &props, &owner), "zeMemGetAllocProperties");
    switch (props.type) {
      case ze::ZE_MEMORY_TYPE_DEVICE:
      case ze::ZE_MEMORY_TYPE_SHARED: break;
      case ze::ZE_MEMORY_TYPE_HOST:
        throw InvalidArgument(what + " is Level Zero host memory; pass USM device or shared memory of the device");
      default:
        throw InvalidArgument(what + " is not Level Zero memory of this device's context (" + d.name +
                              "); pass USM device or shared memory allocated in it");
    }
    if (owner && owner != d.device)
      throw InvalidArgument(what + " is Level Zero memory of another device than this one (" + d.name + ")");
    void* base = nullptr;
    std::size_t size = 0;
    ze::check(api.zeMemGetAddressRange(d.context, ptr, &base, &size), "zeMemGetAddressRange");
    const std::size_t from = address - reinterpret_cast<std::uintptr_t>(base);
    if (from + bytes > size)
      throw InvalidArgument("array_from_ptr: the allocation holding " + address_text(address) + " has " +
                            std::to_string(size - from) + " bytes from there, but the array needs " +
                            std::to_string(bytes));
    return DeviceBuffer::wrap(queue_, ptr, bytes, std::move(keep_alive));
  }

 private:
  std::unique_ptr<level_zero::Module> build(const BuildRequest& request) override {
    return level_zero::build_module(queue_, request);
  }
  // The device's (zeKernelSuggestGroupSize is not asked).
  std::size_t group_limit(const level_zero::Module&) const override { return queue_->device().group_size(); }
  std::unique_ptr<Buffer> new_buffer(std::size_t bytes) override {
    return std::make_unique<DeviceBuffer>(queue_, bytes);
  }
  std::uint64_t argument(const Buffer& b) const override {
    return reinterpret_cast<std::uintptr_t>(static_cast<const DeviceBuffer&>(b).handle());
  }
  // The image handle: zeKernelSetArgumentValue takes a pointer to it, 8 bytes, as for an array's pointer.
  std::uint64_t texture_argument(const TextureImage& image) const override {
    return reinterpret_cast<std::uintptr_t>(static_cast<const level_zero::TextureImage3D&>(image).handle());
  }
  // The queue's launch lock also guards the pack buffers and each kernel's argument state: Level Zero takes the
  // backend-wide lock where CUDA takes a per-variant one.
  std::recursive_mutex* shared_dispatch_lock() const override { return &queue_->launch_lock(); }
  LastKernel* last_kernel() override { return &queue_->last_kernel(); }
  void enqueue(const level_zero::Module& m, const GpuDispatch& d) override {
    const ze::Api& api = ze::api();
    const ze::ze_kernel_handle_t kernel = m.function();
    for (std::uint32_t i = 0; i < d.args.size(); ++i)
      ze::check(api.zeKernelSetArgumentValue(kernel, i, sizeof(std::uint64_t), d.args.pointers()[i]),
                "zeKernelSetArgumentValue");
    ze::check(api.zeKernelSetGroupSize(kernel, d.group, 1, 1), "zeKernelSetGroupSize");
    // The arguments are captured at the append, so the next call may set its own.
    const auto groups = static_cast<std::uint32_t>(d.groups);
    queue_->launch(kernel, groups, "kernel '", d.kernel, "'");
  }

  std::shared_ptr<Queue> queue_;
};

}  // namespace

std::shared_ptr<Backend> make_level_zero_backend(const DeviceOptions& options) {
  return std::make_shared<LevelZeroBackend>(level_zero::open_device(options));
}

}  // namespace tack::backends::level_zero
