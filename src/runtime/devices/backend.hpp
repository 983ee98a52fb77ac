// The backend contract: what every device implementation provides, and the
// storage objects behind tack::Array and tack::Texture.
#pragma once

#include "runtime/cache/cache_key.hpp"
#include "runtime/kernels/compile_report.hpp"

#include "abi/checked_access.hpp"
#include "abi/print_layout.hpp"
#include "abi/scalar_pack.hpp"
#include "ir/ir.hpp"
#include "runtime/devices/lazy_source.hpp"
#include "runtime/reductions/host_reduce.hpp"
#include "runtime/kernels/signature.hpp"
#include "runtime/waits/wait_marker.hpp"

#include <tack/device.hpp>

#include <tack/native_memory.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tack::runtime {

class Backend;
struct CompileRecipe;  // runtime/devices/compile_recipe.hpp

// Device memory. Reads wait for the work queued before them; writes and fills
// are ordered with launches.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~Buffer() = default;
  virtual void write(std::size_t offset, const void* src, std::size_t bytes) = 0;
  virtual void read(std::size_t offset, void* dst, std::size_t bytes) = 0;
  virtual void fill(const void* element, std::size_t element_size, std::size_t count) = 0;
  // Queues a copy of `source`'s first `bytes` into this buffer's start on the device, ordered with the launches,
  // and returns true; false when this buffer cannot copy from that one there (another backend, device or kind
  // of memory), and the caller copies through the host. A texture's snapshot is taken so (src/api/texture.cpp).
  virtual bool copy_from(const Buffer& source, std::size_t bytes) {
    (void)source;
    (void)bytes;
    return false;
  }
  // Host-addressable memory (interp, cpu), else nullptr.
  virtual void* host_data() { return nullptr; }
  // The memory as the device's API names it (Array::share()).
  virtual NativeMemory native() const = 0;
  std::size_t bytes() const { return bytes_; }

  // Memory handed outside Tack or taken from there: every launch and fill that
  // uses it completes before returning (reference: "Memory outside Tack").
  void mark_shared() { shared_.store(true, std::memory_order_release); }
  bool shared() const { return shared_.load(std::memory_order_acquire); }
  // Memory Tack did not allocate (array_from_ptr): it may overlap any other
  // array's, so buffer identity does not prove two arguments disjoint.
  bool external() const { return external_; }

 protected:
  void mark_external() {
    external_ = true;
    mark_shared();
  }

 private:
  std::size_t bytes_;
  std::atomic<bool> shared_{false};
  bool external_ = false;
};

struct ArrayStorage {
  std::shared_ptr<Backend> backend;
  std::shared_ptr<Buffer> buffer;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::int64_t size = 0;
  // Differentiation (docs/autodiff.md, src/api/tape.cpp): whether a Tape records the launches that use the array,
  // and its gradient once Array::grad() made it (guarded by the tape's mutex).
  bool requires_grad = false;
  std::shared_ptr<ArrayStorage> grad;
};

// A texture's copy in the device's texture hardware (a backend's image object).
// Built eagerly and updated in place, so the handle a kernel receives stays valid.
class TextureImage {
 public:
  virtual ~TextureImage() = default;
  // Copies the array's f32 elements (texel (x, y, z) at (z * height + y) * width + x) into the image.
  virtual void upload(const ArrayStorage& source) = 0;
};

struct TextureStorage {
  std::shared_ptr<ArrayStorage> source;
  // The texture's own f32 snapshot: `image` where the backend's texture_in_hardware(shape) was true at
  // creation (then `copy` is null), else `copy`, an f32 array the kernel samples in software.
  std::shared_ptr<ArrayStorage> copy;
  std::shared_ptr<TextureImage> image;
  std::array<std::int64_t, 3> shape{};
};

// One argument of a launch, bound to storage.
struct BoundArg {
  ir::ParamKind kind = ir::ParamKind::Scalar;
  const ArrayStorage* array = nullptr;
  const TextureStorage* texture = nullptr;
  std::uint64_t scalar = 0;
};

// A compiled specialization; each backend derives its own.
struct CompiledVariant {
  virtual ~CompiledVariant() = default;
  ir::Kernel typed;  // after inference and optimization; of a restored variant, its parameters and launch only
  // Made again from the disk cache's front index (runtime/kernels/front_index.hpp) with no typing: `typed` has no
  // body, so a twin kernel's error is reported with the lines it was raised with.
  bool restored = false;
  // The backend's part of this variant's front-index entry, left by a compile with the disk cache on for
  // resolve_variant to store (and clear); empty where the backend keeps no front entries.
  std::string front_entry;
  // Debug mode (passes::bounds_checks): the checked access sites, and the error
  // array's parameter, which the launch appends to the call's arguments; -1 when off.
  std::vector<abi::CheckedAccess> debug_sites;
  int debug_error_param = -1;
  // KernelImpl::locations_hash() of the kernel it was built for: a twin kernel (same
  // IR, other lines) that shares it has its messages' lines mapped back to its own.
  std::uint64_t locations_hash = 0;
  // Prints (passes::lower_prints): their sites and hidden arrays, which the launch binds and reads back.
  abi::PrintLayout prints;
  // What making it cost; a backend's compile() fills the phases it knows.
  CompileReport report;
};

// What resolve_variant hands Backend::compile: one kernel after the pipeline (passes/pipeline.hpp, ended by the
// lowering of the backend's recipe), its key, and its source on demand.
struct CompileInput {
  const ir::Kernel& typed;           // typed and optimized: what the launch reads and the GPU disk caches key by
  const abi::PackedKernel& lowered;  // `typed` lowered as the backend's row asks: what its compiler reads
  const VariantKey& key;             // which kernel and signature (the noalias flag)
  LazySource source;                 // the row's emitter on `lowered`, run only when asked (none for cpu)
};

struct Launch {
  const CompiledVariant* variant = nullptr;
  const BoundArg* args = nullptr;
  std::size_t arg_count = 0;
  std::int64_t count = 0;  // flat iterations (Parallel) or groups (Workgroup); > 0
  std::int64_t outer = 0;  // Parallel: the extent of the launch's outermost dimension (0: not known)
};

class Backend : public std::enable_shared_from_this<Backend> {
 public:
  explicit Backend(Capabilities caps);
  virtual ~Backend() = default;
  const Capabilities& caps() const { return caps_; }
  // Its row's compile recipe (compile_recipe.hpp), found by caps().name: the lowering that ends the pipeline for
  // it and the emitter of its code. A backend without a row (a test's) has the empty one.
  const CompileRecipe& recipe() const { return *recipe_; }

  virtual std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) = 0;
  // Memory Array::export_memory() can hand out as an OS handle; asked only where
  // caps().supports_exportable_memory.
  virtual std::shared_ptr<Buffer> allocate_exportable(std::size_t /*bytes*/) { return nullptr; }
  // In one of caps().device_memory_spaces after the first (asked only for a listed one).
  virtual std::shared_ptr<Buffer> allocate_in(std::string_view space, std::size_t bytes, bool zeroed);
  // The array's memory as an OS handle, first moving it into exportable memory
  // if it is not there; asked only where caps().supports_exportable_memory.
  virtual ExportedMemory export_memory(ArrayStorage& array);
  // A buffer over memory outside Tack, the address already checked against the
  // dtype's alignment; throws InvalidArgument when the address cannot be used.
  // Asked only where caps().supports_wrapped_memory.
  virtual std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                              std::shared_ptr<void> keep_alive);
  // Builds the variant of what the pipeline made (CompileInput). Throws CompileError on failure.
  virtual std::unique_ptr<CompiledVariant> compile(const CompileInput& input) = 0;
  // The disk cache's front index (runtime/kernels/front_index.hpp): what selects this backend's code beyond the
  // traced IR and the call's signature (the key's `code` left empty), or nullopt where it keeps no front entries;
  // and a variant made again from the front_entry one of its compiles left, or nullptr where that cannot be done
  // (the caller then compiles as on a miss).
  virtual std::optional<CacheKey> front_key() { return std::nullopt; }
  virtual std::unique_ptr<CompiledVariant> restore(std::string_view /*front_entry*/) { return nullptr; }
  // The code compile() builds from a lowered kernel, for tack::inspect: asked only where the backend's row has
  // no emitter (cpu), since its device's own compiler emits.
  virtual std::string source(const ir::Kernel& lowered);
  virtual void launch(const Launch& launch) = 0;
  virtual void synchronize() {}
  // A mark whose blocking wait() covers the launches queued so far and raises their error; nullptr: waits run inline.
  virtual std::unique_ptr<WaitMarker> async_marker() { return nullptr; }
  // Runs fn over [0, count) on the host, in parallel where the backend has host
  // workers (the CPU's pool); used for host-side work such as reductions.
  using HostChunkFn = void (*)(void* context, std::int64_t begin, std::int64_t end);
  virtual void run_host_parallel(std::int64_t count, HostChunkFn fn, void* context) const { fn(context, 0, count); }
  // Whether a texture of this {width, height, depth} is kept in the device's
  // texture hardware (an image the device samples) rather than sampled in
  // software over an f32 copy. Asked at every call, before the variant key is
  // built: the choice changes the generated code (reference: Textures).
  virtual bool texture_in_hardware(const std::array<std::int64_t, 3>& /*shape*/) const { return false; }
  // The most bytes of arrays that this backend gives each thread private copies of where a kernel only
  // atomic-adds into them (analysis/private_adds.hpp); 0: it never does. Asked at every call, before the variant
  // key is built (kSignaturePrivateAdds): the choice changes the generated code.
  virtual std::size_t private_add_bytes() const { return 0; }
  // The image of a texture of this {width, height, depth}, asked where texture_in_hardware(shape) is true;
  // nullptr (no image) keeps the texture's copy an f32 array.
  virtual std::shared_ptr<TextureImage> create_texture_image(const std::array<std::int64_t, 3>& /*shape*/) {
    return nullptr;
  }
  // Refuses a launch larger than the backend can run, with InvalidArgument.
  virtual void check_launch_size(const ir::Kernel& /*typed*/, std::int64_t /*count*/) const {}
  // Reduces an array of this backend on the device (Array::sum/min/max, asked
  // only for f32 arrays and when caps().supports_device_reductions): true with
  // the result in *out, or false to leave the reduction to the host.
  virtual bool reduce_device(const ArrayStorage& /*array*/, ReduceOp /*op*/, double* /*out*/) { return false; }
  // What the device is, as name/value pairs for reports (Device::about): its name, its driver's and compiler's
  // versions. Read from what the backend learnt when it was made; asks the driver nothing.
  virtual std::vector<std::pair<std::string, std::string>> about() const { return {}; }

  // Variants compiled on this backend, by kernel and argument signature.
  std::shared_ptr<const CompiledVariant> find_variant(const VariantKey& key) const;
  std::shared_ptr<const CompiledVariant> add_variant(const VariantKey& key, std::shared_ptr<const CompiledVariant> v);
  std::size_t variant_count() const;

 private:
  Capabilities caps_;
  const CompileRecipe* recipe_;
  mutable std::shared_mutex variants_mutex_;
  std::unordered_map<VariantKey, std::shared_ptr<const CompiledVariant>, VariantKeyHash> variants_;
};

// Fills the derived capability entries from the declared ones.
Capabilities derive_capabilities(Capabilities c, const std::vector<DType>& atomic_table);

}  // namespace tack::runtime
