// The hip backend: variants are modules built from the generated HIP C (or
// loaded from cached code objects) with their scalar-pack buffers; launches,
// copies and fills are queued on the device's one stream and return, and a
// launch's error surfaces at the next wait (reference: HIP; "Launches are
// queued"; "Scalar arguments on the GPU"; "Device reductions").
#include "backends/hip/hip_backend.hpp"

#include "backends/hip/hip_description.hpp"
#include "backends/hip/hip_device.hpp"
#include "backends/hip/hip_kernel.hpp"
#include "backends/hip/hip_memory.hpp"
#include "codegen/hip_gen.hpp"
#include "codegen/reduction_source.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "passes/pipeline.hpp"
#include "runtime/device_reductions.hpp"
#include "runtime/gpu_launch_params.hpp"
#include "runtime/gpu_variant.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <array>
#include <mutex>

namespace tack::runtime {
namespace {
namespace hp = drivers::hip;
using hip::Device;
using hip::DeviceBuffer;
using hip::DeviceScope;

constexpr unsigned kBlock = static_cast<unsigned>(codegen::kGpuGroupSize);

struct HipVariant final : CompiledVariant {
  std::unique_ptr<hip::Module> module;
  GpuLayout layout;
  std::vector<std::unique_ptr<DeviceBuffer>> pack_buffers;  // one per pack array, allocated once
  bool workgroup = false;
  // The pack buffers are shared by every dispatch of the variant: held from the pack upload until the launch
  // is queued, so a launch never runs with another thread's scalars (KernelVariant.dispatch_lock).
  mutable std::mutex dispatch;
  mutable std::vector<unsigned char> scratch;  // the host image of one pack array, under `dispatch`
};

Capabilities hip_capabilities() { return hip_description().capabilities(); }

class HipBackend final : public Backend {
 public:
  explicit HipBackend(std::shared_ptr<Device> device) : Backend(hip_capabilities()), device_(std::move(device)) {}

  ~HipBackend() override {
    try {
      device_->synchronize();
    } catch (const Error&) {
      // A failed wait at teardown has no one to report to.
    }
  }

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    const hip::DeviceInfo& d = device_->info();
    if (d.total_memory && bytes > d.total_memory)
      throw InvalidArgument("hip: an array of " + std::to_string(bytes) + " bytes is larger than the " +
                            std::to_string(d.total_memory) + " bytes of " + d.name);
    auto buffer = std::make_shared<DeviceBuffer>(device_, bytes);
    if (zeroed && bytes) {
      const unsigned char zero = 0;
      buffer->fill(&zero, 1, bytes);
    }
    return buffer;
  }

  std::unique_ptr<CompiledVariant> compile(const ir::Kernel& typed, const VariantKey&) override {
    auto v = std::make_unique<HipVariant>();
    passes::PackedKernel packed = passes::lower_for_backend(typed, passes::kCFamilyLowering);
    v->workgroup = typed.launch == ir::LaunchKind::Workgroup;
    v->module = hip::build_module(
        device_, ir::to_string(typed), [&] { return codegen::generate_hip(packed); }, "kernel '" + typed.name + "'");
    v->layout = GpuLayout::of(typed, packed);
    for (const passes::PackArray& a : v->layout.pack.arrays)
      v->pack_buffers.push_back(std::make_unique<DeviceBuffer>(device_, pack_array_bytes(a)));
    return v;
  }

  std::string source(const ir::Kernel& typed) override {
    return codegen::generate_hip(passes::lower_for_backend(typed, passes::kCFamilyLowering)).text;
  }

  // Textures are sampled in software over the texture's f32 copy on every HIP device for now (the default
  // texture_in_hardware()); the hardware image (hipMalloc3DArray) is not yet built: see docs/backends-hip.md.

  void check_launch_size(const ir::Kernel& typed, std::int64_t count) const override {
    check_items(typed.name, count, typed.launch == ir::LaunchKind::Workgroup);
  }

  void launch(const Launch& l) override {
    const auto& v = static_cast<const HipVariant&>(*l.variant);
    check_items(v.typed.name, l.count, v.workgroup);
    const auto blocks = static_cast<unsigned>(hip::launch_work_items(l.count, v.workgroup) / kBlock);
    const hp::Api& api = hp::api();
    DeviceScope scope(device_->info().ordinal);
    const hp::hipStream_t stream = device_->stream();

    GpuLaunchParams values(v.layout.buffer_args.size() + 1);
    std::lock_guard lock(v.dispatch);
    // This launch's scalars go into the variant's pack buffers, queued after every launch before it, so each
    // queued launch reads its own values.
    v.layout.write_packs(l, v.scratch, [&](std::size_t a, const void* bytes, std::size_t size) {
      v.pack_buffers[a]->write(0, bytes, size);
    });
    for (std::size_t i = 0; i < v.layout.buffer_args.size(); ++i) {
      const int p = v.layout.buffer_args[i];
      if (p < 0) {
        values[i] = reinterpret_cast<std::uintptr_t>(v.pack_buffers[static_cast<std::size_t>(-1 - p)]->pointer());
        continue;
      }
      const BoundArg& b = l.args[p];
      const ArrayStorage& storage = b.kind == ir::ParamKind::Texture3D ? *b.texture->copy : *b.array;
      TACK_CHECK(b.kind != ir::ParamKind::Texture3D || !b.texture->image);  // no hardware images on hip yet
      values[i] = reinterpret_cast<std::uintptr_t>(hip::device_pointer(storage));
    }
    values.back() = static_cast<std::uint64_t>(l.count);  // long long __n__
    device_->queue()->last_kernel().set(v.typed.name);
    hp::check(api.hipModuleLaunchKernel(v.module->function(), blocks, 1, 1, kBlock, 1, 1, 0, stream, values.pointers(),
                                        nullptr),
              "hipModuleLaunchKernel");
  }

  void synchronize() override { device_->synchronize(); }
  std::unique_ptr<WaitMarker> async_marker() override { return std::make_unique<hip::StreamMarker>(device_->queue()); }

  bool reduce_device(const ArrayStorage& array, ReduceOp op, double* out) override {
    TACK_CHECK(array.dtype == DType::F32);
    if (array.size == 0) {  // min and max of an empty array are refused before this
      *out = 0.0;
      return true;
    }
    auto& r = reductions_.get(op, [&](codegen::ArrayReduction a) {
      codegen::CSource src = codegen::cuda_reduction_source(a);
      src.text = "#include <hip/hip_runtime.h>\n" + src.text;  // as HipCodeGen's prelude
      return hip::build_module(
          device_, "array reduction\n" + src.text, [&] { return src; }, "the array reduction " + src.entry);
    });
    const std::uint32_t identity = codegen::reduction_identity_bits(r.op);
    DeviceBuffer result(device_, sizeof identity);
    result.fill(&identity, sizeof identity, 1);
    // Enough blocks to fill the device; each thread strides over the rest. The count is 64-bit, so the launch
    // itself stays far inside the launch limit.
    const std::uint64_t wanted = (static_cast<std::uint64_t>(array.size) + kBlock - 1) / kBlock;
    const auto blocks = static_cast<unsigned>(
        std::min<std::uint64_t>({wanted, 32u * static_cast<std::uint64_t>(device_->info().multiprocessors),
                                 hip::launch_limit(device_->info().max_grid_dim_x) / kBlock}));
    {
      DeviceScope scope(device_->info().ordinal);
      void* x = hip::device_pointer(array);
      void* o = result.pointer();
      long long n = array.size;
      void* params[] = {&x, &o, &n};
      hp::check(hp::api().hipModuleLaunchKernel(r.program->function(), blocks, 1, 1, kBlock, 1, 1, 0, device_->stream(),
                                                params, nullptr),
                "hipModuleLaunchKernel");
    }
    float value = 0;
    result.read(0, &value, sizeof value);
    *out = static_cast<double>(value);
    return true;
  }

 private:
  void check_items(const std::string& kernel, std::int64_t count, bool workgroup) const {
    const hip::DeviceInfo& d = device_->info();
    const std::uint64_t items = hip::launch_work_items(count, workgroup);
    const std::uint64_t limit = hip::launch_limit(d.max_grid_dim_x);
    if (items <= limit) return;
    throw InvalidArgument("kernel '" + kernel + "': a launch of " + std::to_string(count) +
                          (workgroup ? " groups" : " work-items") + " needs " + std::to_string(items) +
                          " work-items in blocks of 256, more than " + d.name + " runs in one launch (" +
                          std::to_string(limit) +
                          ": its maximum gridDim.x times 256, at most 2^32 - 256, since the AMD dispatch packet "
                          "holds the work-item count in 32 bits)");
  }

  std::shared_ptr<Device> device_;
  DeviceReductions<hip::Module> reductions_;
};

}  // namespace

std::shared_ptr<Backend> make_hip_backend(const DeviceOptions& options) {
  return std::make_shared<HipBackend>(Device::open(options));
}

}  // namespace tack::runtime
