// The metal backend (reference: Metal; "Launches are queued"; "Scalar
// arguments on the GPU"; Textures; "Device reductions"). A variant is a
// compute pipeline built from the generated MSL. A launch copies its scalars
// into a new uniform buffer it owns, fills a new argument buffer (the kernel's
// one `constant <entry>_args&`: every array, texture and scalar pack is a field
// of it, which is what makes overlapping arrays legal in MSL) with their Metal 3
// GPU addresses, encodes a compute pass into the queue's open command buffer
// under the batch lock, and returns.
#include "backends/metal/metal_backend.hpp"

#include "abi/group_size.hpp"
#include "backends/metal/metal_device.hpp"
#include "backends/metal/metal_kernel.hpp"
#include "backends/metal/metal_memory.hpp"
#include "backends/metal/metal_objc.h"
#include "backends/metal/metal_queue.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/reductions/device_reductions.hpp"
#include "runtime/gpu/gpu_layout.hpp"
#include "runtime/diagnostics/group_size_error.hpp"
#include "runtime/reductions/host_reduce.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace tack::backends::metal {
using namespace tack::runtime;
namespace {

constexpr std::size_t kGroup = static_cast<std::size_t>(abi::kGroupSize);
// Threadgroups of a reduction at most: each lane strides over the rest, and Metal reports no core count to
// size it by; 1024 groups of 256 keep every Apple GPU busy.
constexpr std::uint64_t kReductionGroups = 1024;
// setBytes takes at most 4 KB (Metal's limit for inline constant data); a larger argument buffer is a new MTLBuffer.
constexpr std::size_t kSetBytesLimit = 4096;

struct MetalVariant final : CompiledVariant {
  std::unique_ptr<metal::Pipeline> pipeline;
  GpuLayout layout;
  bool workgroup = false;
  std::size_t width = kGroup;  // threads per threadgroup
};

Capabilities metal_capabilities() {
  Capabilities c = backend_description("metal").capabilities();
  c.supports_wrapped_memory = true;  // an id<MTLBuffer> of the device (MetalBuffer::wrap)
  // No supports_exportable_memory: Array::export_memory() hands out a POSIX fd, which an MTLBuffer has none of;
  // the reference's Metal export_memory() (the id<MTLBuffer>, after the queued launches) is Array::share().
  c.dlpack_refusal_note = metal::kDlpackRefusalNote;
  return c;
}

class MetalBackend final : public Backend {
 public:
  explicit MetalBackend(std::shared_ptr<metal::Device> device)
      : Backend(metal_capabilities()), device_(device), queue_(metal::Queue::open(std::move(device))) {}

  // The queue's destructor waits for everything queued.
  ~MetalBackend() override = default;

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    return std::make_shared<MetalBuffer>(device_, queue_, bytes, zeroed);
  }

  std::unique_ptr<CompiledVariant> compile(const CompileInput& input) override {
    const ir::Kernel& typed = input.typed;
    auto v = std::make_unique<MetalVariant>();
    v->workgroup = typed.launch == ir::LaunchKind::Workgroup;
    // The optimized kernel's text decides the code; the row's emitter (MSL) runs only where the cache has none.
    const std::string key = ir::to_string(typed), what = "kernel '" + typed.name + "'";
    v->pipeline = metal::build_pipeline(*device_, {key, input.source, what, typed.fp_contract});
    v->layout = GpuLayout::of(typed, input.lowered);
    const std::size_t limit = v->pipeline->max_threads();
    if (v->workgroup) {
      if (limit < kGroup)
        throw GroupSizeError("kernel '" + typed.name + "' needs threadgroups of " + std::to_string(kGroup) +
                             " threads, but " + device_->info().name + " runs it with at most " +
                             std::to_string(limit) + " (maxTotalThreadsPerThreadgroup)");
    } else {
      // The grid is exactly the launch's count (dispatchThreads), so any width works: min(pipeline max, 256).
      v->width = std::min(limit, kGroup);
    }
    return v;
  }

  // The texture hardware (reference: Textures, Metal row) where the GPU filters 32-bit floats and the extents
  // fit its 3D limit; otherwise the kernel samples in software over the texture's f32 copy. Decided here, before
  // the variant key, so tack::inspect's stand-in (the description's TexturesInHardware) shows the same path.
  bool texture_in_hardware(const std::array<std::int64_t, 3>& shape) const override {
    const metal::DeviceInfo& d = device_->info();
    if (!backend_description("metal").features.has(Feature::TexturesInHardware) || !d.float32_filtering)
      return false;
    for (int a = 0; a < 3; ++a)
      if (shape[a] > d.max_texture3d[a]) return false;
    return true;
  }

  std::shared_ptr<TextureImage> create_texture_image(const std::array<std::int64_t, 3>& shape) override {
    return std::make_shared<metal::TextureImage3D>(queue_, shape);
  }

  void check_launch_size(const ir::Kernel& typed, std::int64_t count) const override {
    metal::check_launch(typed.name, count, typed.launch == ir::LaunchKind::Workgroup);
  }

  void launch(const Launch& l) override {
    if (l.count <= 0) return;  // an empty range encodes nothing
    const auto& v = static_cast<const MetalVariant&>(*l.variant);
    metal::check_launch(v.typed.name, l.count, v.workgroup);

    // This launch's scalars go into a buffer of its own (_Uniforms), never a pack shared between launches:
    // a pack rewritten for the next call could change under a launch that has not run yet.
    std::vector<unsigned char> uniforms, scratch;
    std::vector<std::size_t> offsets(v.layout.pack.arrays.size());
    v.layout.write_packs(l, scratch, [&](std::size_t a, const void* bytes, std::size_t size) {
      const std::size_t at = (uniforms.size() + 15) / 16 * 16;  // aligned for any scalar type
      offsets[a] = at;
      uniforms.resize(at + size);
      std::memcpy(uniforms.data() + at, bytes, size);
    });

    // A launch that binds memory handed outside Tack completes before returning (_shared): Kernel::launch
    // waits after it, as on every backend.

    // The argument buffer, struct <entry>_args: each array's, texture's and pack's 8-byte GPU handle in the
    // kernel's order, then long __n__ (iterations, or groups of a workgroup kernel).
    std::vector<std::uint64_t> fields(v.layout.buffer_args.size() + 1);
    static_assert(sizeof(std::uint64_t) == metal::kArgumentFieldBytes);
    fields.back() = static_cast<std::uint64_t>(l.count);

    id<MTLComputePipelineState> pipeline = v.pipeline->objects().pipeline;
    queue_->last_kernel().set(v.typed.name);
    queue_->encode(
        [&](Encoding& e) {
          // Everything that can fail comes before the encoder is made, so a failure leaves no pass half-encoded.
          id<MTLBuffer> uniform = nil;
          if (!uniforms.empty()) {
            uniform = [e.device newBufferWithBytes:uniforms.data()
                                            length:uniforms.size()
                                           options:MTLResourceStorageModeShared];
            if (!uniform) throw BackendError("metal: out of memory for the scalars of kernel '" + v.typed.name + "'");
            [e.owned addObject:uniform];
          }
          const NSUInteger argument_bytes = metal::argument_buffer_bytes(v.layout.buffer_args.size());
          id<MTLBuffer> arguments = nil;
          if (argument_bytes > kSetBytesLimit) {
            arguments = [e.device newBufferWithLength:argument_bytes options:MTLResourceStorageModeShared];
            if (!arguments)
              throw BackendError("metal: out of memory for the arguments of kernel '" + v.typed.name + "'");
            [e.owned addObject:arguments];
          }

          id<MTLComputeCommandEncoder> pass = [e.command_buffer computeCommandEncoder];
          [pass setComputePipelineState:pipeline];
          for (std::size_t i = 0; i < v.layout.buffer_args.size(); ++i) {
            const int p = v.layout.buffer_args[i];
            // What the kernel reaches through an address rather than a binding must be made resident
            // (useResource), which also orders it with the launches before (hazard tracking).
            if (p < 0) {
              fields[i] = metal::gpu_address(uniform) + offsets[static_cast<std::size_t>(-1 - p)];
              continue;
            }
            const BoundArg& b = l.args[p];
            if (b.kind == ir::ParamKind::Texture && b.texture->image) {
              id<MTLTexture> texture = static_cast<const metal::TextureImage3D&>(*b.texture->image).objects().texture;
              fields[i] = metal::gpu_resource_id(texture);
              [pass useResource:texture usage:MTLResourceUsageRead];
              e.holds->push_back(b.texture->image);
              continue;
            }
            const ArrayStorage& a = b.kind == ir::ParamKind::Texture ? *b.texture->copy : *b.array;
            MetalBuffer* buffer = metal::metal_buffer(a);
            TACK_CHECK(buffer);
            fields[i] = metal::gpu_address(buffer->objects().buffer);
            [pass useResource:buffer->objects().buffer usage:MTLResourceUsageRead | MTLResourceUsageWrite];
            e.holds->push_back(a.buffer);  // a dropped array outlives the launch that uses it
          }
          if (uniform) [pass useResource:uniform usage:MTLResourceUsageRead];
          // A fresh argument buffer per launch: small ones are copied into the command buffer by setBytes, so the
          // launch owns them and the next launch's fields never overwrite them.
          if (arguments) {
            std::memcpy(arguments.contents, fields.data(), argument_bytes);
            [pass setBuffer:arguments offset:0 atIndex:0];
          } else {
            [pass setBytes:fields.data() length:argument_bytes atIndex:0];
          }
          const auto count = static_cast<NSUInteger>(l.count);
          if (v.workgroup) {
            [pass dispatchThreadgroups:MTLSizeMake(count, 1, 1) threadsPerThreadgroup:MTLSizeMake(kGroup, 1, 1)];
          } else {
            // Exactly count threads: the last threadgroup may be partial, so the kernel needs no bounds guard.
            [pass dispatchThreads:MTLSizeMake(count, 1, 1) threadsPerThreadgroup:MTLSizeMake(v.width, 1, 1)];
          }
          [pass endEncoding];
        });
  }

  // Memory outside Tack is an id<MTLBuffer> of this device (Array::share() of a metal array gives one, and a
  // kDLMetal DLPack tensor's data is one), covering the array.
  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    return MetalBuffer::wrap(device_, queue_, address, bytes, std::move(keep_alive));
  }

  void synchronize() override { queue_->synchronize(); }
  std::unique_ptr<WaitMarker> async_marker() override { return queue_->marker(); }

  bool reduce_device(const ArrayStorage& array, ReduceOp op, double* out) override {
    if (static_cast<std::uint64_t>(array.size) >= metal::kMaxLaunch) {
      // Metal reduces an array of 2^32 or more elements on the host (reference: "Device reductions"), in place
      // over the shared memory, once every queue has finished with it.
      MetalBuffer* x = metal::metal_buffer(array);
      TACK_CHECK(x);
      metal::synchronize_all();
      DType t = DType::F64;
      const ir::Bits bits = host_reduce(*this, DType::F32, x->contents(), array.size, op, &t);
      TACK_CHECK(t == DType::F64);
      *out = std::bit_cast<double>(bits);
      return true;
    }
    return reductions_.run(array, op, kReductionGroups, out);
  }

 private:
  std::shared_ptr<metal::Device> device_;
  std::shared_ptr<metal::Queue> queue_;
  DeviceReductions reductions_;
};

}  // namespace

std::shared_ptr<Backend> make_metal_backend(const DeviceOptions&) {
  return std::make_shared<MetalBackend>(metal::Device::open());
}

}  // namespace tack::backends::metal
