// The cuda backend: variants are modules built from the generated CUDA C (or
// loaded from cached PTX) with their scalar-pack buffers; launches, copies and
// fills are queued on the context's one stream and return, and a launch's
// error surfaces at the next wait (reference: CUDA; "Launches are queued";
// "Scalar arguments on the GPU").
#include "backends/cuda/cuda_backend.hpp"

#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_description.hpp"
#include "backends/cuda/cuda_kernel.hpp"
#include "backends/cuda/cuda_memory.hpp"
#include "backends/cuda/cuda_texture.hpp"
#include "codegen/cuda_gen.hpp"
#include "codegen/reduction_source.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "passes/pipeline.hpp"
#include "runtime/array_checks.hpp"
#include "runtime/device_reductions.hpp"
#include "runtime/gpu_launch_params.hpp"
#include "runtime/gpu_variant.hpp"
#include "runtime/wait_marker.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <array>
#include <mutex>
#include <shared_mutex>

namespace tack::runtime {
namespace {
namespace cu = drivers::cu;
using cuda::Context;
using cuda::DeviceBuffer;

constexpr unsigned kBlock = static_cast<unsigned>(codegen::kGpuGroupSize);

struct CudaVariant final : CompiledVariant {
  std::unique_ptr<cuda::Module> module;
  GpuLayout layout;
  std::vector<std::unique_ptr<DeviceBuffer>> pack_buffers;  // one per pack array, allocated once
  unsigned block = kBlock;
  bool workgroup = false;
  // The pack buffers are shared by every dispatch of the variant: held from the pack upload until the launch
  // is queued, so a launch never runs with another thread's scalars.
  mutable std::mutex dispatch;
  mutable std::vector<unsigned char> scratch;  // the host image of one pack array, under `dispatch`
};

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
  Capabilities c = cuda_description().capabilities();
  c.supports_exportable_memory = d.virtual_memory && d.posix_fd_handles;
  c.supports_wrapped_memory = true;
  return c;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(std::shared_ptr<Context> context)
      : Backend(cuda_capabilities(context->device())), context_(std::move(context)) {}

  ~CudaBackend() override {
    try {
      context_->synchronize();
    } catch (const Error&) {
      // A failed wait at teardown has no one to report to.
    }
  }

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    check_fits(bytes, "an array");
    auto buffer = std::make_shared<DeviceBuffer>(context_, bytes);
    if (zeroed && bytes) {
      const unsigned char zero = 0;
      buffer->fill(&zero, 1, bytes);
    }
    return buffer;
  }

  std::shared_ptr<Buffer> allocate_exportable(std::size_t bytes) override {
    check_fits(bytes, "an exportable array");
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

  std::unique_ptr<CompiledVariant> compile(const ir::Kernel& typed, const VariantKey&) override {
    auto v = std::make_unique<CudaVariant>();
    passes::PackedKernel packed = passes::lower_for_backend(typed, passes::kCFamilyLowering);
    v->workgroup = typed.launch == ir::LaunchKind::Workgroup;
    v->module = cuda::build_module(
        context_, ir::to_string(typed), [&] { return codegen::generate_cuda(packed); }, "kernel '" + typed.name + "'");
    v->layout = GpuLayout::of(typed, packed);
    for (const passes::PackArray& a : v->layout.pack.arrays)
      v->pack_buffers.push_back(std::make_unique<DeviceBuffer>(context_, pack_array_bytes(a)));
    const int limit = v->module->max_threads();
    if (v->workgroup) {
      if (limit < static_cast<int>(kBlock))
        throw BackendError("kernel '" + typed.name + "' needs blocks of 256 threads, but " + context_->device().name +
                           " runs it with at most " + std::to_string(limit) + " (too many registers)");
    } else {
      // The generated index is blockIdx * blockDim + threadIdx, so a register-heavy kernel runs in smaller
      // blocks; whole warps of 32.
      v->block = static_cast<unsigned>(std::clamp(limit / 32 * 32, 32, static_cast<int>(kBlock)));
    }
    return v;
  }

  std::string source(const ir::Kernel& typed) override {
    return codegen::generate_cuda(passes::lower_for_backend(typed, passes::kCFamilyLowering)).text;
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

  void check_launch_size(const ir::Kernel& typed, std::int64_t count) const override {
    check_blocks(typed.name, count, typed.launch == ir::LaunchKind::Workgroup, kBlock);
  }

  void launch(const Launch& l) override {
    const auto& v = static_cast<const CudaVariant&>(*l.variant);
    check_blocks(v.typed.name, l.count, v.workgroup, v.block);
    const std::uint64_t blocks = blocks_for(l.count, v.workgroup, v.block);
    const cu::Api& api = cu::api();
    Context::Scope scope(*context_);
    const cu::CUstream stream = context_->stream();

    GpuLaunchParams values(v.layout.buffer_args.size() + 1);
    std::lock_guard lock(v.dispatch);
    // This launch's scalars go into the variant's pack buffers, queued after every launch before it, so each
    // queued launch reads its own values.
    v.layout.write_packs(l, v.scratch, [&](std::size_t a, const void* bytes, std::size_t size) {
      v.pack_buffers[a]->write(0, bytes, size);
    });
    // Array addresses stay put until the launch is queued (export_memory() moves memory exclusively).
    std::shared_lock hold(context_->relocation());
    for (std::size_t i = 0; i < v.layout.buffer_args.size(); ++i) {
      const int p = v.layout.buffer_args[i];
      if (p < 0) {
        values[i] = v.pack_buffers[static_cast<std::size_t>(-1 - p)]->pointer();
        continue;
      }
      const BoundArg& b = l.args[p];
      if (b.kind != ir::ParamKind::Texture3D) {
        values[i] = cuda::device_pointer(*b.array);
      } else if (b.texture->image) {
        // The image outlives queued launches: its destructor waits for the stream.
        values[i] = static_cast<const cuda::TextureImage3D&>(*b.texture->image).object();
      } else {
        values[i] = cuda::device_pointer(*b.texture->copy);
      }
    }
    values.back() = static_cast<std::uint64_t>(l.count);  // long long __n__
    context_->last_kernel().set(v.typed.name);
    cu::check(api.cuLaunchKernel(v.module->function(), static_cast<unsigned>(blocks), 1, 1, v.block, 1, 1, 0, stream,
                                 values.pointers(), nullptr),
              "cuLaunchKernel");
  }

  void synchronize() override { context_->synchronize(); }
  std::unique_ptr<WaitMarker> async_marker() override { return std::make_unique<StreamMarker>(context_); }

  bool reduce_device(const ArrayStorage& array, ReduceOp op, double* out) override {
    TACK_CHECK(array.dtype == DType::F32);
    if (array.size == 0) {  // min and max of an empty array are refused before this
      *out = 0.0;
      return true;
    }
    auto& r = reductions_.get(op, [&](codegen::ArrayReduction a) {
      codegen::CSource src = codegen::cuda_reduction_source(a);
      return cuda::build_module(
          context_, "array reduction\n" + src.text, [&] { return src; }, "the array reduction " + src.entry);
    });
    const std::uint32_t identity = codegen::reduction_identity_bits(r.op);
    DeviceBuffer result(context_, sizeof identity);
    result.fill(&identity, sizeof identity, 1);
    // Enough blocks to fill the device; each thread strides over the rest.
    const std::uint64_t wanted = (static_cast<std::uint64_t>(array.size) + kBlock - 1) / kBlock;
    const auto blocks = static_cast<unsigned>(
        std::min<std::uint64_t>({wanted, 32u * static_cast<std::uint64_t>(context_->device().multiprocessors),
                                 static_cast<std::uint64_t>(context_->device().max_grid_dim_x)}));
    {
      std::shared_lock hold(context_->relocation());
      Context::Scope scope(*context_);
      cu::CUdeviceptr x = cuda::device_pointer(array), o = result.pointer();
      long long n = array.size;
      void* params[] = {&x, &o, &n};
      cu::check(cu::api().cuLaunchKernel(r.program->function(), blocks, 1, 1, kBlock, 1, 1, 0, context_->stream(),
                                         params, nullptr),
                "cuLaunchKernel");
    }
    float value = 0;
    result.read(0, &value, sizeof value);
    *out = static_cast<double>(value);
    return true;
  }

 private:
  // Refuses more memory than the device has, before the driver is asked.
  void check_fits(std::size_t bytes, const char* what) const {
    const cuda::DeviceInfo& d = context_->device();
    if (d.total_memory && bytes > d.total_memory)
      throw InvalidArgument("cuda: " + std::string(what) + " of " + std::to_string(bytes) +
                            " bytes is larger than the " + std::to_string(d.total_memory) + " bytes of " + d.name);
  }

  static std::uint64_t blocks_for(std::int64_t count, bool workgroup, unsigned block) {
    const auto n = static_cast<std::uint64_t>(count);
    return workgroup ? n : n / block + (n % block != 0);
  }

  void check_blocks(const std::string& kernel, std::int64_t count, bool workgroup, unsigned block) const {
    const cuda::DeviceInfo& d = context_->device();
    if (blocks_for(count, workgroup, block) <= static_cast<std::uint64_t>(d.max_grid_dim_x)) return;
    throw InvalidArgument("kernel '" + kernel + "': a launch of " + std::to_string(count) +
                          (workgroup ? " groups" : " work-items") + " needs " +
                          std::to_string(blocks_for(count, workgroup, block)) + " blocks of " + std::to_string(block) +
                          " threads, more than " + d.name + " runs in one launch (" + std::to_string(d.max_grid_dim_x) +
                          ", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)");
  }

  std::shared_ptr<Context> context_;
  DeviceReductions<cuda::Module> reductions_;
};

}  // namespace

std::shared_ptr<Backend> make_cuda_backend(const DeviceOptions& options) {
  return std::make_shared<CudaBackend>(Context::open(options));
}

}  // namespace tack::runtime
