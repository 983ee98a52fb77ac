// The hip backend: variants are modules built from the generated HIP C (or
// loaded from cached code objects) with their scalar-pack buffers; launches,
// copies and fills are queued on the device's one stream and return, and a
// launch's error surfaces at the next wait (reference: HIP; "Launches are
// queued"; "Scalar arguments on the GPU"; "Device reductions").
#include "backends/hip/hip_backend.hpp"

#include "backends/hip/hip_device.hpp"
#include "backends/hip/hip_driver.hpp"
#include "backends/hip/hip_kernel.hpp"
#include "backends/hip/hip_memory.hpp"
#include "backends/hip/hip_texture.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/gpu/gpu_backend.hpp"
#include "runtime/gpu/grid_launch.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <algorithm>

namespace tack::backends::hip {
using namespace tack::runtime;
namespace {
namespace hp = hip::driver;

Capabilities hip_capabilities() {
  Capabilities c = backend_description("hip").capabilities();
  c.supports_wrapped_memory = true;  // device memory of the device (HipBackend::wrap_memory)
  return c;
}

GpuLimits hip_limits(const hip::DeviceInfo& d) {
  // The AMD dispatch packet holds the grid's work-item count in 32 bits (reference: HIP, Launch).
  const std::uint64_t items = hip::launch_limit(d.max_grid_dim_x);
  return {.backend = "hip",
          .device = d.name,
          .max_array_bytes = d.total_memory,
          .groups_word = "blocks",
          .items_word = "threads",
          .max_launch = items,
          .launch_counts_items = true,
          .launch_limit_why =
              "its maximum gridDim.x times 256, at most 2^32 - 256, since the AMD dispatch packet "
              "holds the work-item count in 32 bits",
          .max_reduction_groups = std::min(32u * static_cast<std::uint64_t>(d.multiprocessors), items / kGpuGroup)};
}

class HipBackend final : public GpuBackendOf<hip::Module> {
 public:
  explicit HipBackend(std::shared_ptr<Device> device)
      : GpuBackendOf(hip_capabilities(), hip_limits(device->info())), device_(std::move(device)) {}
  ~HipBackend() override { wait_at_teardown(); }

  std::vector<std::pair<std::string, std::string>> about() const override {
    const hip::DeviceInfo& d = device_->info();
    // hipRuntimeGetVersion: major * 10^7 + minor * 10^5 + patch.
    const int v = d.runtime_version;
    return {{"device", d.name},
            {"architecture", d.arch},
            {"memory", std::to_string(d.total_memory >> 20) + " MiB"},
            {"runtime", "HIP " + std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
                            std::to_string(v % 100000)}};
  }

  // In the texture hardware where the device has image support and the shape fits its 3D limits, else in
  // software over the texture's f32 copy (CDNA parts, gfx940/941/942, have no texture hardware). Asked for
  // every texture and again by resolve_variant before the variant key, so the code agrees with the storage.
  bool texture_in_hardware(const std::array<std::int64_t, 3>& shape) const override {
    return hip::fits_texture_hardware(device_->info(), shape);
  }
  std::shared_ptr<TextureImage> create_texture_image(const std::array<std::int64_t, 3>& shape) override {
    return std::make_shared<hip::TextureImage3D>(device_, shape);
  }

  void synchronize() override { device_->synchronize(); }
  std::unique_ptr<WaitMarker> async_marker() override { return std::make_unique<hip::StreamMarker>(device_->queue()); }

  // Memory outside Tack must be this device's, with every byte of the array in one allocation, as on CUDA.
  // A runtime without hipPointerGetAttribute cannot say whose memory it is, so nothing is wrapped there.
  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    const hp::Api& api = hp::api();
    const hip::DeviceInfo& d = device_->info();
    auto* ptr = reinterpret_cast<void*>(address);
    if (!api.hipPointerGetAttribute)
      throw InvalidArgument("array_from_ptr: this HIP runtime (" + api.library +
                            ") has no hipPointerGetAttribute, so Tack cannot check that " + address_text(address) +
                            " is memory of the device");
    int ordinal = -1;
    if (const hp::hipError_t r = api.hipPointerGetAttribute(&ordinal, hp::HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
        r != hp::hipSuccess)
      throw InvalidArgument("array_from_ptr: " + address_text(address) +
                            " is not HIP device memory (hipPointerGetAttribute: " + hp::error_text(r) + ")");
    if (ordinal != d.ordinal)
      throw InvalidArgument("array_from_ptr: " + address_text(address) + " is memory of HIP device " +
                            std::to_string(ordinal) + ", not of this device (" + std::to_string(d.ordinal) + ", " +
                            d.name + ")");
    hp::hipDeviceptr_t base = nullptr;
    std::size_t size = 0;
    if (api.hipMemGetAddressRange && api.hipMemGetAddressRange(&base, &size, ptr) == hp::hipSuccess) {
      const std::size_t from = address - reinterpret_cast<std::uintptr_t>(base);
      if (from + bytes > size)
        throw InvalidArgument("array_from_ptr: the allocation holding " + address_text(address) + " has " +
                              std::to_string(size - from) + " bytes from there, but the array needs " +
                              std::to_string(bytes));
    }
    return DeviceBuffer::wrap(device_, hip::BufferCache::Block{ptr, bytes}, bytes, std::move(keep_alive));
  }

 private:
  std::unique_ptr<hip::Module> build(const BuildRequest& request) override {
    return hip::build_module(device_, request);
  }
  // hipFuncGetAttribute is not asked: every kernel runs in blocks of 256.
  std::size_t group_limit(const hip::Module&) const override { return kGpuGroup; }
  std::unique_ptr<Buffer> new_buffer(std::size_t bytes) override {
    return std::make_unique<DeviceBuffer>(device_, bytes);
  }
  std::unique_ptr<Buffer> new_buffer_in(std::string_view space, std::size_t bytes) override {
    return std::make_unique<DeviceBuffer>(device_, device_->allocate_in(space, bytes), bytes);
  }
  std::uint64_t argument(const Buffer& b) const override {
    return reinterpret_cast<std::uintptr_t>(static_cast<const DeviceBuffer&>(b).handle().ptr);
  }
  std::uint64_t texture_argument(const TextureImage& image) const override {
    return reinterpret_cast<std::uintptr_t>(static_cast<const hip::TextureImage3D&>(image).object());
  }
  LastKernel* last_kernel() override { return &device_->queue()->last_kernel(); }
  void enqueue(const hip::Module& m, const GpuDispatch& d) override {
    DeviceScope scope(device_->info().ordinal);
    hp::check(grid_launch(hp::api().hipModuleLaunchKernel, m.function(), device_->stream(), d),
              "hipModuleLaunchKernel");
  }

  std::shared_ptr<Device> device_;
};

}  // namespace

std::shared_ptr<Backend> make_hip_backend(const DeviceOptions& options) {
  return std::make_shared<HipBackend>(Device::open(options));
}

}  // namespace tack::backends::hip
