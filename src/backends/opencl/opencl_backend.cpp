// The opencl backend: variants are programs built from the generated OpenCL C
// (or loaded from the disk cache) with their scalar-pack buffers; launches are
// enqueued on the backend's one in-order queue and return (reference:
// "Launches are queued", "Scalar arguments on the GPU").
#include "backends/opencl/opencl_backend.hpp"

#include "backends/opencl/opencl_device.hpp"
#include "backends/opencl/opencl_driver.hpp"
#include "backends/opencl/opencl_kernel.hpp"
#include "backends/opencl/opencl_memory.hpp"
#include "backends/opencl/opencl_queue.hpp"
#include "runtime/gpu/gpu_backend.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace tack::backends::opencl {
using namespace tack::runtime;
namespace {
namespace cl = opencl::driver;

GpuLimits opencl_limits(const opencl::DeviceInfo& d) {
  // The global work size must fit the device's size_t (CL_DEVICE_ADDRESS_BITS) and the host's.
  const std::uint64_t device_max =
      d.address_bits >= 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << d.address_bits) - 1;
  return {.backend = "opencl",
          .device = d.label(),
          .max_array_bytes = d.max_mem_alloc_size,
          .allocation_limit = "CL_DEVICE_MAX_MEM_ALLOC_SIZE",
          .max_launch = std::min<std::uint64_t>(device_max, std::numeric_limits<std::size_t>::max()),
          .launch_counts_items = true,
          .launch_limit_why = "the global work size, a size_t of CL_DEVICE_ADDRESS_BITS",
          .max_reduction_groups = 64u * static_cast<std::uint64_t>(d.compute_units)};
}

class OpenCLBackend final : public GpuBackendOf<opencl::Program> {
 public:
  explicit OpenCLBackend(opencl::DeviceInfo device)
      : GpuBackendOf(opencl::capabilities(device), opencl_limits(device)),
        queue_(std::make_shared<opencl::Queue>(std::move(device))) {}
  ~OpenCLBackend() override { wait_at_teardown(); }

  void synchronize() override { queue_->finish(); }
  std::vector<std::pair<std::string, std::string>> about() const override {
    const opencl::DeviceInfo& d = queue_->device();
    return {{"device", d.device_name},
            {"platform", d.platform_name + " (" + d.platform_version + ")"},
            {"device version", d.device_version},
            {"driver", d.driver_version},
            {"compiles", d.c_std}};
  }
  std::unique_ptr<WaitMarker> async_marker() override { return opencl::Queue::enqueue_marker(queue_); }

  // Memory outside Tack is a cl_mem buffer of this backend's context (Array::share() of an opencl array gives
  // one, and a context's buffers are the only memory its kernels bind), covering the array. The address must be
  // a cl_mem: OpenCL cannot tell another pointer from one, and its ICD loader reads through it.
  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    const cl::Api& api = cl::api();
    auto* mem = reinterpret_cast<cl::cl_mem>(address);
    const std::string what = "array_from_ptr: " + address_text(address);
    cl::cl_context context = nullptr;
    if (const cl::cl_int r = api.clGetMemObjectInfo(mem, cl::CL_MEM_CONTEXT, sizeof context, &context, nullptr);
        r != cl::CL_SUCCESS)
      throw InvalidArgument(what + " is not an OpenCL memory object (clGetMemObjectInfo: " + cl::error_name(r) +
                            "); pass a cl_mem buffer of the device's context");
    if (context != queue_->context())
      throw InvalidArgument(what + " is a cl_mem of another OpenCL context than this device's (" +
                            queue_->device().label() + "); pass one of the context of an opencl array's share()");
    cl::cl_uint type = 0;
    std::size_t size = 0;
    cl::check(api.clGetMemObjectInfo(mem, cl::CL_MEM_TYPE, sizeof type, &type, nullptr), "clGetMemObjectInfo");
    if (type != cl::CL_MEM_OBJECT_BUFFER) throw InvalidArgument(what + " is an OpenCL image or pipe, not a buffer");
    cl::check(api.clGetMemObjectInfo(mem, cl::CL_MEM_SIZE, sizeof size, &size, nullptr), "clGetMemObjectInfo");
    if (size < bytes)
      throw InvalidArgument(what + " is a cl_mem of " + std::to_string(size) + " bytes, but the array needs " +
                            std::to_string(bytes));
    return DeviceBuffer::wrap(queue_, mem, bytes, std::move(keep_alive));
  }

 private:
  std::unique_ptr<opencl::Program> build(const BuildRequest& request) override {
    return opencl::build_program(*queue_, request);
  }
  std::size_t group_limit(const opencl::Program& p) const override { return p.group_limit(); }
  std::unique_ptr<Buffer> new_buffer(std::size_t bytes) override {
    return std::make_unique<DeviceBuffer>(queue_, bytes);
  }
  std::uint64_t argument(const Buffer& b) const override {
    return reinterpret_cast<std::uintptr_t>(static_cast<const DeviceBuffer&>(b).handle());
  }
  // clSetKernelArg on one cl_kernel is not thread-safe: the program's dispatch lock is held.
  void enqueue(const opencl::Program& p, const GpuDispatch& d) override {
    const cl::Api& api = cl::api();
    for (cl::cl_uint i = 0; i < d.args.size(); ++i)
      cl::check(api.clSetKernelArg(p.kernel(), i, sizeof(std::uint64_t), d.args.pointers()[i]), "clSetKernelArg");
    // GpuBackend::launch has checked that the product fits a size_t.
    queue_->launch(p.kernel(), static_cast<std::size_t>(d.groups * d.group), d.group, p.entry().c_str(), d.kernel);
  }

  std::shared_ptr<opencl::Queue> queue_;
};

}  // namespace

std::shared_ptr<Backend> make_opencl_backend(const DeviceOptions& options) {
  return std::make_shared<OpenCLBackend>(opencl::choose_device(options));
}

}  // namespace tack::backends::opencl
