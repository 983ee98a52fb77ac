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
#include "codegen/opencl_gen.hpp"
#include "codegen/reduction_source.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "passes/pipeline.hpp"
#include "runtime/device_reductions.hpp"
#include "runtime/gpu_variant.hpp"

#include <tack/error.hpp>

#include <array>
#include <limits>
#include <mutex>

namespace tack::runtime {
namespace {
namespace cl = opencl::driver;
using opencl::DeviceBuffer;

cl::cl_mem mem_of(const ArrayStorage& a) { return static_cast<const DeviceBuffer&>(*a.buffer).mem(); }

struct OpenCLVariant final : CompiledVariant {
  std::unique_ptr<opencl::Program> program;
  GpuLayout layout;
  std::vector<std::unique_ptr<DeviceBuffer>> pack_buffers;  // one per pack array, allocated once
  std::size_t local_size = opencl::kGroupSize;
  bool workgroup = false;
  // clSetKernelArg on one cl_kernel is not thread-safe, and the pack buffers are
  // shared by every dispatch of the variant: held from the pack upload to the enqueue.
  mutable std::mutex dispatch;
  mutable std::vector<unsigned char> scratch;  // the host image of one pack array, under `dispatch`
};

class OpenCLBackend final : public Backend {
 public:
  explicit OpenCLBackend(opencl::DeviceInfo device)
      : Backend(opencl::capabilities(device)), queue_(std::make_shared<opencl::Queue>(std::move(device))) {}

  ~OpenCLBackend() override {
    try {
      queue_->finish();
    } catch (const Error&) {
      // A failed wait at teardown has no one to report to.
    }
  }

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    // Refused here, by name, rather than as whatever the driver reports (often nothing until first use).
    const opencl::DeviceInfo& d = queue_->device();
    if (d.max_mem_alloc_size && bytes > d.max_mem_alloc_size)
      throw InvalidArgument("opencl: an array of " + std::to_string(bytes) + " bytes is larger than " + d.device_name +
                            " allows for one allocation (" + std::to_string(d.max_mem_alloc_size) +
                            " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    auto buffer = std::make_shared<DeviceBuffer>(queue_, bytes);
    if (zeroed && bytes) {
      const unsigned char zero = 0;
      queue_->fill(buffer->mem(), &zero, 1, 0, bytes);
    }
    return buffer;
  }

  std::unique_ptr<CompiledVariant> compile(const ir::Kernel& typed, const VariantKey&) override {
    auto v = std::make_unique<OpenCLVariant>();
    // Packing is cheap and not code generation; a cache hit redoes it for the layout.
    passes::PackedKernel packed = passes::lower_for_backend(typed, passes::kCFamilyLowering);
    v->workgroup = typed.launch == ir::LaunchKind::Workgroup;
    v->program = opencl::build_program(
        *queue_, ir::to_string(typed), [&] { return codegen::generate_opencl(packed); }, "kernel '" + typed.name + "'");
    v->layout = GpuLayout::of(typed, packed);
    for (const passes::PackArray& a : v->layout.pack.arrays)
      v->pack_buffers.push_back(std::make_unique<DeviceBuffer>(queue_, pack_array_bytes(a)));
    const std::size_t limit = v->program->group_limit();
    if (v->workgroup) {
      if (limit < opencl::kGroupSize)
        throw BackendError("kernel '" + typed.name + "' needs groups of " + std::to_string(opencl::kGroupSize) +
                           " work-items, but " + queue_->device().label() + " runs it with at most " +
                           std::to_string(limit));
    } else {
      // The generated index is group * local size + local id, so any group size works; 256 where allowed.
      v->local_size = std::max<std::size_t>(1, std::min(opencl::kGroupSize, limit));
    }
    return v;
  }

  std::string source(const ir::Kernel& typed) override {
    return codegen::generate_opencl(passes::lower_for_backend(typed, passes::kCFamilyLowering)).text;
  }

  void check_launch_size(const ir::Kernel& typed, std::int64_t count) const override {
    // The work-item count must fit the device's size_t (CL_DEVICE_ADDRESS_BITS) and the host's.
    const std::uint64_t device_max = queue_->device().address_bits >= 64
                                         ? std::numeric_limits<std::uint64_t>::max()
                                         : (std::uint64_t{1} << queue_->device().address_bits) - 1;
    const std::uint64_t limit = std::min<std::uint64_t>(device_max, std::numeric_limits<std::size_t>::max());
    const auto n = static_cast<std::uint64_t>(count);
    const bool workgroup = typed.launch == ir::LaunchKind::Workgroup;
    // Parallel: rounded up to whole groups of at most 256; workgroup: 256 work-items per group.
    const bool fits = workgroup ? n <= limit / opencl::kGroupSize : n <= limit - (opencl::kGroupSize - 1);
    if (!fits)
      throw InvalidArgument("kernel '" + typed.name + "': a launch of " + std::to_string(count) +
                            (workgroup ? " groups of 256 work-items" : " work-items") + " exceeds what " +
                            queue_->device().label() + " can run (" + std::to_string(limit) +
                            " work-items in one launch)");
  }

  void launch(const Launch& l) override {
    const auto& v = static_cast<const OpenCLVariant&>(*l.variant);
    const cl::Api& api = cl::api();
    const cl::cl_kernel kernel = v.program->kernel();
    std::lock_guard lock(v.dispatch);
    // This launch's scalars go into the variant's pack buffers, enqueued before the launch and after
    // every launch before it, so each queued launch reads its own values.
    v.layout.write_packs(l, v.scratch, [&](std::size_t a, const void* bytes, std::size_t size) {
      v.pack_buffers[a]->write(0, bytes, size);
    });
    cl::cl_uint index = 0;
    for (int p : v.layout.buffer_args) {
      cl::cl_mem mem = nullptr;
      if (p < 0) {
        mem = v.pack_buffers[static_cast<std::size_t>(-1 - p)]->mem();
      } else {
        const BoundArg& b = l.args[p];
        mem = b.kind == ir::ParamKind::Texture3D ? mem_of(*b.texture->copy) : mem_of(*b.array);
      }
      cl::check(api.clSetKernelArg(kernel, index++, sizeof mem, &mem), "clSetKernelArg");
    }
    const cl::cl_long n = l.count;
    cl::check(api.clSetKernelArg(kernel, index, sizeof n, &n), "clSetKernelArg");
    // check_launch_size() has bounded these products.
    const auto count = static_cast<std::size_t>(l.count);
    const std::size_t global =
        v.workgroup ? count * opencl::kGroupSize : (count + v.local_size - 1) / v.local_size * v.local_size;
    queue_->launch(kernel, global, v.workgroup ? opencl::kGroupSize : v.local_size, v.program->entry().c_str(),
                   v.typed.name);
  }

  void synchronize() override { queue_->finish(); }
  std::unique_ptr<WaitMarker> async_marker() override { return opencl::Queue::enqueue_marker(queue_); }

  bool reduce_device(const ArrayStorage& array, ReduceOp op, double* out) override {
    TACK_CHECK(array.dtype == DType::F32);
    if (array.size == 0) {  // min and max of an empty array are refused before this
      *out = 0.0;
      return true;
    }
    auto& r = reductions_.get(op, [&](codegen::ArrayReduction a) -> std::unique_ptr<opencl::Program> {
      if (queue_->device().max_work_group_size < opencl::kGroupSize) return nullptr;
      codegen::CSource src = codegen::opencl_reduction_source(a);
      auto program = opencl::build_program(
          *queue_, "array reduction\n" + src.text, [&] { return src; }, "the array reduction " + src.entry);
      return program->group_limit() >= opencl::kGroupSize ? std::move(program) : nullptr;
    });
    if (!r.program) return false;  // the device cannot run groups of 256: the host reduces
    const std::uint32_t identity = codegen::reduction_identity_bits(r.op);
    DeviceBuffer result(queue_, sizeof identity);
    queue_->fill(result.mem(), &identity, sizeof identity, 0, sizeof identity);
    const std::uint64_t groups64 =
        (static_cast<std::uint64_t>(array.size) + opencl::kGroupSize - 1) / opencl::kGroupSize;
    // Enough groups to fill the device; each lane strides over the rest.
    const std::size_t groups =
        static_cast<std::size_t>(std::min<std::uint64_t>(groups64, 64u * queue_->device().compute_units));
    {
      const cl::Api& api = cl::api();
      std::lock_guard lock(r.dispatch);
      cl::cl_mem x = mem_of(array), o = result.mem();
      const cl::cl_long n = array.size;
      cl::check(api.clSetKernelArg(r.program->kernel(), 0, sizeof x, &x), "clSetKernelArg");
      cl::check(api.clSetKernelArg(r.program->kernel(), 1, sizeof o, &o), "clSetKernelArg");
      cl::check(api.clSetKernelArg(r.program->kernel(), 2, sizeof n, &n), "clSetKernelArg");
      queue_->launch(r.program->kernel(), groups * opencl::kGroupSize, opencl::kGroupSize, r.program->entry().c_str(),
                     r.program->entry());
    }
    float value = 0;
    result.read(0, &value, sizeof value);
    *out = static_cast<double>(value);
    return true;
  }

 private:
  std::shared_ptr<opencl::Queue> queue_;
  DeviceReductions<opencl::Program> reductions_;
};

}  // namespace

std::shared_ptr<Backend> make_opencl_backend(const DeviceOptions& options) {
  return std::make_shared<OpenCLBackend>(opencl::choose_device(options));
}

}  // namespace tack::runtime
