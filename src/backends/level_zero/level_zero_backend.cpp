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
#include "codegen/opencl_gen.hpp"
#include "codegen/reduction_source.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "passes/pipeline.hpp"
#include "runtime/device_reductions.hpp"
#include "runtime/gpu_variant.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <array>
#include <mutex>

namespace tack::runtime {
namespace {
namespace ze = level_zero::driver;
using level_zero::DeviceBuffer;
using level_zero::Queue;

constexpr std::uint32_t kWorkgroupSize = static_cast<std::uint32_t>(codegen::kGpuGroupSize);

struct LevelZeroVariant final : CompiledVariant {
  std::unique_ptr<level_zero::Module> module;
  GpuLayout layout;
  std::vector<std::unique_ptr<DeviceBuffer>> pack_buffers;  // one per pack array, allocated once
  std::uint32_t group = kWorkgroupSize;
  bool workgroup = false;
  // The host image of one pack array, under the queue's launch lock (which also guards the pack buffers and the
  // kernel's argument state: Level Zero takes the backend-wide lock where CUDA takes a per-variant one).
  mutable std::vector<unsigned char> scratch;
};

class LevelZeroBackend final : public Backend {
 public:
  explicit LevelZeroBackend(level_zero::DeviceInfo device)
      : Backend(level_zero::capabilities(device)), queue_(std::make_shared<Queue>(std::move(device))) {}

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    const level_zero::DeviceInfo& d = queue_->device();
    if (d.max_mem_alloc && bytes > d.max_mem_alloc)
      throw InvalidArgument("level_zero: an array of " + std::to_string(bytes) + " bytes is larger than " + d.name +
                            " allows for one allocation (" + std::to_string(d.max_mem_alloc) +
                            " bytes, maxMemAllocSize)");
    auto buffer = std::make_shared<DeviceBuffer>(queue_, bytes);
    if (zeroed && bytes) {
      const unsigned char zero = 0;
      buffer->fill(&zero, 1, bytes);
    }
    return buffer;
  }

  std::unique_ptr<CompiledVariant> compile(const ir::Kernel& typed, const VariantKey&) override {
    auto v = std::make_unique<LevelZeroVariant>();
    passes::PackedKernel packed = passes::lower_for_backend(typed, passes::kCFamilyLowering);
    v->workgroup = typed.launch == ir::LaunchKind::Workgroup;
    const std::uint32_t group = queue_->device().group_size();
    if (v->workgroup && group < kWorkgroupSize)
      throw BackendError("kernel '" + typed.name + "' needs groups of 256 work-items, but " + queue_->device().name +
                         " runs at most " + std::to_string(group) + " (maxGroupSizeX, maxTotalGroupSize)");
    v->group = v->workgroup ? kWorkgroupSize : group;
    v->module = level_zero::build_module(
        queue_, ir::to_string(typed), [&] { return codegen::generate_opencl(packed); }, "kernel '" + typed.name + "'");
    v->layout = GpuLayout::of(typed, packed);
    for (const passes::PackArray& a : v->layout.pack.arrays)
      v->pack_buffers.push_back(std::make_unique<DeviceBuffer>(queue_, pack_array_bytes(a)));
    return v;
  }

  std::string source(const ir::Kernel& typed) override {
    return codegen::generate_opencl(passes::lower_for_backend(typed, passes::kCFamilyLowering)).text;
  }

  // Textures are sampled in software over the texture's f32 copy (docs/backends-level-zero.md: the image path is
  // not yet built), so the answer is the same for every shape.
  bool texture_in_hardware(const std::array<std::int64_t, 3>&) const override { return false; }

  void check_launch_size(const ir::Kernel& typed, std::int64_t count) const override {
    const bool workgroup = typed.launch == ir::LaunchKind::Workgroup;
    check_groups(typed.name, count, workgroup, workgroup ? kWorkgroupSize : queue_->device().group_size());
  }

  void launch(const Launch& l) override {
    const auto& v = static_cast<const LevelZeroVariant&>(*l.variant);
    // The group count is a uint32 that would truncate rather than reject: refused first.
    check_groups(v.typed.name, l.count, v.workgroup, v.group);
    const auto groups = static_cast<std::uint32_t>(groups_for(l.count, v.workgroup, v.group));
    const ze::Api& api = ze::api();
    const ze::ze_kernel_handle_t kernel = v.module->kernel();
    std::lock_guard lock(queue_->launch_lock());
    // This launch's scalars go into the variant's pack buffers, appended after every launch before it, so each
    // queued launch reads its own values.
    v.layout.write_packs(l, v.scratch, [&](std::size_t a, const void* bytes, std::size_t size) {
      v.pack_buffers[a]->write(0, bytes, size);
    });
    std::uint32_t index = 0;
    for (int p : v.layout.buffer_args) {
      void* ptr = nullptr;
      if (p < 0) {
        ptr = v.pack_buffers[static_cast<std::size_t>(-1 - p)]->pointer();
      } else {
        const BoundArg& b = l.args[p];
        ptr = level_zero::device_pointer(b.kind == ir::ParamKind::Texture3D ? *b.texture->copy : *b.array);
      }
      ze::check(api.zeKernelSetArgumentValue(kernel, index++, sizeof ptr, &ptr), "zeKernelSetArgumentValue");
    }
    const std::int64_t n = l.count;  // long __n__
    ze::check(api.zeKernelSetArgumentValue(kernel, index, sizeof n, &n), "zeKernelSetArgumentValue");
    ze::check(api.zeKernelSetGroupSize(kernel, v.group, 1, 1), "zeKernelSetGroupSize");
    // The arguments are captured at the append, so the next call may set its own.
    queue_->last_kernel().set(v.typed.name);
    queue_->launch(kernel, groups, "kernel '", v.typed.name, "'");
  }

  void synchronize() override { queue_->synchronize(); }
  std::unique_ptr<WaitMarker> async_marker() override { return Queue::marker(queue_); }

  bool reduce_device(const ArrayStorage& array, ReduceOp op, double* out) override {
    TACK_CHECK(array.dtype == DType::F32);
    // The reduction's tree needs groups of 256.
    if (queue_->device().group_size() < kWorkgroupSize) return false;
    if (array.size == 0) {  // min and max of an empty array are refused before this
      *out = 0.0;
      return true;
    }
    auto& r = reductions_.get(op, [&](codegen::ArrayReduction a) {
      codegen::CSource src = codegen::opencl_reduction_source(a);
      return level_zero::build_module(
          queue_, "array reduction\n" + src.text, [&] { return src; }, "the array reduction " + src.entry);
    });
    const std::uint32_t identity = codegen::reduction_identity_bits(r.op);
    DeviceBuffer result(queue_, sizeof identity);
    result.fill(&identity, sizeof identity, 1);
    // Enough groups to fill the device; each lane strides over the rest.
    const std::uint64_t wanted = (static_cast<std::uint64_t>(array.size) + kWorkgroupSize - 1) / kWorkgroupSize;
    const auto groups = static_cast<std::uint32_t>(
        std::min<std::uint64_t>({wanted, 4096, std::max<std::uint32_t>(1, queue_->device().max_group_count_x)}));
    {
      const ze::Api& api = ze::api();
      std::lock_guard lock(queue_->launch_lock());
      const ze::ze_kernel_handle_t kernel = r.program->kernel();
      void* x = level_zero::device_pointer(array);
      void* o = result.pointer();
      const std::int64_t n = array.size;
      ze::check(api.zeKernelSetArgumentValue(kernel, 0, sizeof x, &x), "zeKernelSetArgumentValue");
      ze::check(api.zeKernelSetArgumentValue(kernel, 1, sizeof o, &o), "zeKernelSetArgumentValue");
      ze::check(api.zeKernelSetArgumentValue(kernel, 2, sizeof n, &n), "zeKernelSetArgumentValue");
      ze::check(api.zeKernelSetGroupSize(kernel, kWorkgroupSize, 1, 1), "zeKernelSetGroupSize");
      queue_->launch(kernel, groups, "the array reduction ", r.program->entry());
    }
    float value = 0;
    result.read(0, &value, sizeof value);
    *out = static_cast<double>(value);
    return true;
  }

 private:
  static std::uint64_t groups_for(std::int64_t count, bool workgroup, std::uint32_t group) {
    const auto n = static_cast<std::uint64_t>(count);
    return workgroup ? n : n / group + (n % group != 0);
  }

  void check_groups(const std::string& kernel, std::int64_t count, bool workgroup, std::uint32_t group) const {
    const level_zero::DeviceInfo& d = queue_->device();
    const std::uint64_t groups = groups_for(count, workgroup, group);
    if (groups <= d.max_group_count_x) return;
    throw InvalidArgument("kernel '" + kernel + "': a launch of " + std::to_string(count) +
                          (workgroup ? " groups" : " work-items") + " needs " + std::to_string(groups) + " groups of " +
                          std::to_string(group) + " work-items, more than " + d.name + " runs in one launch (" +
                          std::to_string(d.max_group_count_x) + ", maxGroupCountX)");
  }

  std::shared_ptr<Queue> queue_;
  DeviceReductions<level_zero::Module> reductions_;
};

}  // namespace

std::shared_ptr<Backend> make_level_zero_backend(const DeviceOptions& options) {
  return std::make_shared<LevelZeroBackend>(level_zero::open_device(options));
}

}  // namespace tack::runtime
