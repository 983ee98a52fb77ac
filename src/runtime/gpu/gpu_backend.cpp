// The algorithm the queued GPU backends share; each backend's hooks do the
// driver calls.
#include "runtime/gpu/gpu_backend.hpp"

#include "abi/group_size.hpp"
#include "ir/check.hpp"
#include "ir/printer.hpp"

#include <tack/error.hpp>

namespace tack::runtime {
namespace {
constexpr std::uint32_t kGroup = kGpuGroup;

// The backend's one lock for every dispatch where it names one, else the program's own.
class DispatchLock {
 public:
  DispatchLock(std::recursive_mutex* shared, std::mutex& own) {
    if (shared)
      shared_ = std::unique_lock(*shared);
    else
      own_ = std::unique_lock(own);
  }

 private:
  std::unique_lock<std::recursive_mutex> shared_;
  std::unique_lock<std::mutex> own_;
};
}  // namespace

std::shared_ptr<Buffer> GpuBackend::allocate(std::size_t bytes, bool zeroed) {
  // Refused here, by name, rather than as whatever the driver reports (often nothing until first use).
  check_array_bytes(limits_, bytes, "an array");
  std::shared_ptr<Buffer> buffer = new_buffer(bytes);
  if (zeroed && bytes) {
    const unsigned char zero = 0;
    buffer->fill(&zero, 1, bytes);
  }
  return buffer;
}

std::shared_ptr<Buffer> GpuBackend::allocate_in(std::string_view space, std::size_t bytes, bool zeroed) {
  check_array_bytes(limits_, bytes, "an array");
  std::shared_ptr<Buffer> buffer = new_buffer_in(space, bytes);
  if (zeroed && bytes) {
    const unsigned char zero = 0;
    buffer->fill(&zero, 1, bytes);
  }
  return buffer;
}

std::unique_ptr<Buffer> GpuBackend::new_buffer_in(std::string_view, std::size_t) {
  TACK_UNREACHABLE("new_buffer_in asked of a backend with one memory space");
}

std::unique_ptr<CompiledVariant> GpuBackend::compile(const CompileInput& input) {
  const ir::Kernel& typed = input.typed;
  auto v = std::make_unique<GpuVariant>();
  v->workgroup = typed.launch == ir::LaunchKind::Workgroup;
  // The optimized kernel's text decides the code (the packed one follows from it); the source is made only
  // where no cached binary serves.
  const std::string key = ir::to_string(typed), what = "kernel '" + typed.name + "'";
  v->program = build_erased({key, input.source, what, typed.fp_contract});
  // The packed kernel gives the layout, on a cache hit too (the pipeline packs the scalars: no code generation).
  v->layout = GpuLayout::of(typed, input.lowered);
  for (const abi::PackArray& a : v->layout.pack.arrays) v->pack_buffers.push_back(new_buffer(pack_array_bytes(a)));
  v->group = group_for_program(limits_, typed.name, v->workgroup, group_limit_erased(*v->program));
  return v;
}

void GpuBackend::check_launch_size(const ir::Kernel& typed, std::int64_t count) const {
  const bool workgroup = typed.launch == ir::LaunchKind::Workgroup;
  check_launch_groups(limits_, typed.name, count, workgroup, workgroup ? kGroup : limits_.parallel_group);
}

void GpuBackend::launch(const Launch& l) {
  const auto& v = static_cast<const GpuVariant&>(*l.variant);
  // A group count the driver takes in 32 bits would truncate rather than reject: refused first.
  check_launch_groups(limits_, v.typed.name, l.count, v.workgroup, v.group);
  const DispatchLock lock(shared_dispatch_lock(), v.dispatch);
  dispatch(v, l, groups_for(l.count, v.workgroup, v.group));
}

void GpuBackend::dispatch(const GpuVariant& v, const Launch& l, std::uint64_t groups) {
  // This launch's scalars go into the variant's pack buffers, queued after every launch before it, so each
  // queued launch reads its own values.
  v.layout.write_packs(l, v.scratch, [&](std::size_t a, const void* bytes, std::size_t size) {
    v.pack_buffers[a]->write(0, bytes, size);
  });
  GpuLaunchParams args(v.layout.buffer_args.size() + 1);
  const std::shared_lock<std::shared_mutex> hold = hold_addresses();
  for (std::size_t i = 0; i < v.layout.buffer_args.size(); ++i) {
    const int p = v.layout.buffer_args[i];
    if (p < 0) {
      args[i] = argument(*v.pack_buffers[static_cast<std::size_t>(-1 - p)]);
      continue;
    }
    const BoundArg& b = l.args[p];
    if (b.kind != ir::ParamKind::Texture) {
      args[i] = argument(*b.array->buffer);
    } else if (b.texture->image) {
      // The image outlives queued launches: its destructor waits for the queue.
      args[i] = texture_argument(*b.texture->image);
    } else {
      args[i] = argument(*b.texture->copy->buffer);
    }
  }
  args.back() = static_cast<std::uint64_t>(l.count);  // long __n__
  if (LastKernel* last = last_kernel()) last->set(v.typed.name);
  enqueue_erased(*v.program, GpuDispatch{args, groups, v.group, v.typed.name});
}

std::uint64_t GpuBackend::texture_argument(const TextureImage&) const {
  TACK_UNREACHABLE("a texture image on a backend that samples every texture in software");
}

bool GpuBackend::reduce_device(const ArrayStorage& array, ReduceOp op, double* out) {
  return reductions_.run(array, op, limits_.max_reduction_groups, out);
}

void GpuBackend::wait_at_teardown() noexcept {
  try {
    synchronize();
  } catch (const Error&) {
    // A failed wait at teardown has no one to report to.
  }
}

}  // namespace tack::runtime
