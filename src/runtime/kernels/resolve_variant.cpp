// Argument checking and variant resolution. The warm path builds a fixed-size
// signature and looks it up; the IR is hashed once per kernel, at trace time.
// A miss takes the one compile path (resolve_variant, at the end).
#include "runtime/kernels/resolve_variant.hpp"

#include "ir/printer.hpp"
#include "passes/pipeline.hpp"
#include "runtime/devices/compile_recipe.hpp"
#include "runtime/devices/registry.hpp"
#include "runtime/kernels/compile_report.hpp"
#include "runtime/kernels/front_index.hpp"
#include "runtime/memory/access.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>
#include <tack/kernel.hpp>

#include <chrono>

#include <algorithm>
#include <mutex>

namespace tack::runtime {
namespace {

const char* kind_name(const KernelArg& a) {
  switch (a.kind) {
    case ArgKind::Array: return a.spec_only ? "an ArraySpec" : "an Array";
    case ArgKind::Scalar: return "a scalar";
    case ArgKind::Texture: return "a Texture";
  }
  return "?";
}

std::string param_list(const ir::Kernel& k) {
  std::string s;
  for (size_t i = 0; i < k.params.size(); ++i) {
    s += (i ? ", " : "") + std::string(ir::param_kind_name(k.params[i].kind));
    if (k.params[i].fixed_dtype && k.params[i].kind != ir::ParamKind::Texture)
      s += "Of<" + std::string(dtype_name(*k.params[i].fixed_dtype)) + ">";
  }
  return s;
}

[[noreturn]] void check_failed_type(const std::string& kernel, size_t i, const std::string& msg) {
  throw TypeError("kernel '" + kernel + "', argument " + std::to_string(i) + ": " + msg);
}

// "(4096, 3)", as NumPy writes a shape (the expected shape is written alike).
std::string tuple_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// An array parameter of vectors or matrices (lang::detail::require_element_shape): the array's trailing
// dimensions are the element's shape, after at least one leading dimension. Refused before anything runs.
ElementShape check_element_shape(const std::string& kernel, size_t i, const ir::Param& p, const KernelArg& a,
                                 int rank) {
  const int rows = p.element_rows, cols = p.element_cols, dims = cols > 0 ? 2 : 1;
  const std::string element = cols > 0 ? "mat" + std::to_string(rows) + std::to_string(cols) + " elements"
                                       : "vec" + std::to_string(rows) + " elements";
  const std::string expected = "(..., " + std::to_string(rows) + (cols > 0 ? ", " + std::to_string(cols) : "") + ")";
  const std::string head = "kernel '" + kernel + "', argument " + std::to_string(i) + " holds " + element +
                           ": expected an array of shape " + expected + " with 1 to " + std::to_string(4 - dims) +
                           " leading dimensions, ";
  if (a.spec_only) {
    if (rank <= dims) throw InvalidArgument(head + "got an ArraySpec of rank " + std::to_string(rank));
  } else {
    const std::vector<std::int64_t>& shape = detail::Access::storage(*a.array)->shape;
    const int n = static_cast<int>(shape.size());
    bool ok = n > dims && shape[static_cast<size_t>(n - dims)] == rows && (cols == 0 || shape.back() == cols);
    if (!ok) throw InvalidArgument(head + "got shape " + tuple_text(shape));
  }
  return {static_cast<std::uint8_t>(rows), static_cast<std::uint8_t>(cols)};
}

// A derivative kernel's gradient (or tangent) arrays have their primal array's dtype and shape.
void check_gradient_shapes(const ir::Kernel& k, std::span<const KernelArg> args) {
  const char* what = k.derivative == ir::Derivative::Tangent ? "the tangent" : "the gradient";
  for (size_t i = 0; i < args.size(); ++i) {
    const int p = k.params[i].gradient_of;
    if (p < 0) continue;
    const KernelArg &g = args[i], &a = args[static_cast<size_t>(p)];
    const std::string head = "kernel '" + k.name + "', argument " + std::to_string(i) + " (" + what +
                             " of argument " + std::to_string(p) + ")";
    const DType gd = g.spec_only ? g.dtype : g.array->dtype(), ad = a.spec_only ? a.dtype : a.array->dtype();
    if (gd != ad)
      throw TypeError(head + " must have its dtype " + std::string(dtype_name(ad)) + ", got " +
                      std::string(dtype_name(gd)));
    if (g.spec_only || a.spec_only) {
      const int gr = g.spec_only ? g.rank : g.array->rank(), ar = a.spec_only ? a.rank : a.array->rank();
      if (gr != ar)
        throw InvalidArgument(head + " must have its rank " + std::to_string(ar) + ", got " + std::to_string(gr));
    } else if (g.array->shape() != a.array->shape()) {
      throw InvalidArgument(head + " must have its shape " + tuple_text(a.array->shape()) + ", got shape " +
                            tuple_text(g.array->shape()));
    }
  }
}

std::mutex g_observer_mutex;

// Whether two arguments' memory may overlap: the same buffer, or ranges that meet where either came from outside.
bool overlap(const Buffer& a, const Buffer& b) {
  if (&a == &b) return true;
  if (!a.external() && !b.external()) return false;
  const NativeMemory x = a.native(), y = b.native();
  if (x.kind != y.kind) return false;
  // An empty range still counts at its address, so two wraps of one pointer are never proven disjoint.
  const std::uintptr_t x_end = x.handle + std::max<std::size_t>(x.bytes, 1),
                       y_end = y.handle + std::max<std::size_t>(y.bytes, 1);
  return x.handle < y_end && y.handle < x_end;
}
std::function<void(const ir::Kernel&)> g_observer;

// kSignaturePrivateAdds where the arrays the kernel only atomic-adds into are together small enough for the
// backend to give each thread copies of (an ArraySpec, in inspect, has no size: never).
std::uint8_t private_adds(const KernelImpl& impl, const ResolvedCall& call, const Backend& backend) {
  const std::uint32_t adds = impl.add_only_params();
  const std::size_t limit = adds ? backend.private_add_bytes() : 0;
  if (!limit) return 0;
  std::size_t bytes = 0;
  for (size_t i = 0; i < call.count; ++i) {
    if (!(adds >> i & 1u)) continue;
    const ArrayStorage* a = call.args[i].array;
    if (!a) return 0;
    bytes += static_cast<std::size_t>(a->size) * dtype_size(a->dtype);
  }
  return bytes <= limit ? kSignaturePrivateAdds : 0;
}
}  // namespace

void set_specialize_observer(std::function<void(const ir::Kernel&)> observer) {
  std::lock_guard lock(g_observer_mutex);
  g_observer = std::move(observer);
}

ResolvedCall check_call(KernelImpl& impl, std::span<const KernelArg> args, std::shared_ptr<Backend> backend,
                        bool for_inspect) {
  const ir::Kernel& k = impl.traced();
  if (args.size() != k.params.size())
    throw InvalidArgument("kernel '" + k.name + "' takes " + std::to_string(k.params.size()) + " arguments (" +
                          param_list(k) + "), got " + std::to_string(args.size()));
  ResolvedCall call;
  // The device: the first array's or texture's, unless one was given.
  int device_arg = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    const ArrayStorage* s = a.kind == ArgKind::Array && !a.spec_only && a.array->valid()
                                ? detail::Access::storage(*a.array).get()
                            : a.kind == ArgKind::Texture && detail::Access::storage(*a.texture)
                                ? detail::Access::storage(*a.texture)->source.get()  // copy is null for an image
                                : nullptr;
    if (!s) continue;
    if (!backend) {
      backend = s->backend;
      device_arg = static_cast<int>(i);
    } else if (s->backend != backend && !for_inspect) {
      throw InvalidArgument("kernel '" + k.name + "', argument " + std::to_string(i) + " lives on device '" +
                            s->backend->caps().name + "' but the call runs on '" + backend->caps().name + "'" +
                            (device_arg >= 0 ? " (the device of argument " + std::to_string(device_arg) + ")" : "") +
                            "; copy it with to_host/from_host first");
    }
  }
  if (!backend) backend = default_backend();
  const Capabilities& caps = backend->caps();

  call.count = args.size();
  call.signature.count = static_cast<std::uint8_t>(args.size());
  call.signature.flags = debug() ? kSignatureDebug : 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    const ir::Param& p = k.params[i];
    BoundArg& b = call.args[i];
    b.kind = p.kind;
    ArgKey key;
    key.kind = p.kind;
    key.dtype = a.dtype;
    auto expect = [&](ir::ParamKind want, bool ok) {
      if (!ok)
        check_failed_type(k.name, i,
                          std::string("the parameter is ") +
                              (want == ir::ParamKind::Array    ? "an Array"
                               : want == ir::ParamKind::Scalar ? "a Scalar"
                                                               : "a Texture3D") +
                              ", got " + kind_name(a));
    };
    switch (p.kind) {
      case ir::ParamKind::Array:
        expect(p.kind, a.kind == ArgKind::Array && (!a.spec_only || for_inspect));
        if (!a.spec_only) {
          if (!a.array->valid())
            throw InvalidArgument("kernel '" + k.name + "', argument " + std::to_string(i) +
                                  ": an empty tack::Array (default-constructed or moved from)");
          b.array = detail::Access::storage(*a.array).get();
          key.dtype = b.array->dtype;
          key.rank = static_cast<int>(b.array->shape.size());
        } else {
          key.rank = a.rank;
          if (key.rank < 1 || key.rank > 4)
            throw InvalidArgument("kernel '" + k.name + "', argument " + std::to_string(i) +
                                  ": an ArraySpec rank must be 1 to 4, got " + std::to_string(key.rank));
        }
        if (p.element_rows > 0) key.element = check_element_shape(k.name, i, p, a, key.rank);
        break;
      case ir::ParamKind::Scalar:
        expect(p.kind, a.kind == ArgKind::Scalar);
        b.scalar = a.bits;
        key.weak = a.weak;
        break;
      case ir::ParamKind::Texture:
        expect(p.kind, a.kind == ArgKind::Texture);
        if (!detail::Access::storage(*a.texture))
          throw InvalidArgument("kernel '" + k.name + "', argument " + std::to_string(i) + ": an empty tack::Texture");
        b.texture = detail::Access::storage(*a.texture).get();
        key.dtype = DType::F32;
        key.hardware_texture = backend->texture_in_hardware(b.texture->shape);
        break;
    }
    if (p.fixed_dtype && *p.fixed_dtype != key.dtype)
      check_failed_type(k.name, i,
                        "the parameter is declared " +
                            std::string(p.kind == ir::ParamKind::Array ? "ArrayOf<" : "ScalarOf<") +
                            std::string(dtype_name(*p.fixed_dtype)) + ">, got " + std::string(dtype_name(key.dtype)));
    if (!caps.supports(key.dtype))
      check_failed_type(k.name, i,
                        std::string(dtype_name(key.dtype)) + " is not supported on the " + caps.name + " backend");
    call.signature.items[i] = key.encode();
  }
  check_gradient_shapes(k, args);
  // Arrays in distinct buffers cannot overlap, unless one is memory from outside Tack, which may lie inside
  // another: calls proven disjoint get a noalias variant.
  bool disjoint = true;
  for (size_t i = 0; i < call.count && disjoint; ++i)
    for (size_t j = 0; j < i && disjoint; ++j)
      if (call.args[i].array && call.args[j].array && overlap(*call.args[i].array->buffer, *call.args[j].array->buffer))
        disjoint = false;
  if (disjoint) call.signature.flags |= kSignatureNoalias;
  if (disjoint && !(call.signature.flags & kSignatureDebug)) call.signature.flags |= private_adds(impl, call, *backend);
  call.backend = std::move(backend);
  return call;
}

passes::Specialized specialize(KernelImpl& impl, const Backend& backend, const Signature& sig,
                               passes::BackendLowering lowering, bool observed) {
  const ir::Kernel& k = impl.traced();
  passes::TypingRequest request;
  request.params.resize(k.params.size());
  request.hardware_texture.resize(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ArgKey key = ArgKey::decode(sig.items[i]);
    request.params[i] = {.dtype = key.dtype, .rank = key.rank, .weak = key.weak};
    request.hardware_texture[i] = key.hardware_texture;
  }
  request.debug = (sig.flags & kSignatureDebug) != 0;
  const Capabilities& caps = backend.caps();
  request.device = {.f64 = caps.supports_f64, .backend = caps.name};
  request.capabilities = &caps;
  passes::Specialized specialized = passes::run_pipeline(k, request, lowering);
  if (!observed) return specialized;
  std::lock_guard lock(g_observer_mutex);
  if (g_observer) g_observer(specialized.kernel);
  return specialized;
}

// The one compile path of every backend, for a variant the backend has not made yet.
std::shared_ptr<const CompiledVariant> resolve_variant(KernelImpl& impl, Backend& backend, const Signature& sig) {
  VariantKey key{impl.hash_lo(), impl.hash_hi(), sig};
  if (auto v = backend.find_variant(key)) return v;

  // 0. The disk cache's front index: a variant a process made before, found with no typing. Skipped where the
  //    pipeline is watched (TACK_DUMP_IR, a specialize observer).
  bool watched = support::env_flag("TACK_DUMP_IR");
  if (!watched) {
    std::lock_guard lock(g_observer_mutex);
    watched = static_cast<bool>(g_observer);
  }
  const FrontIndex front(impl, backend, sig, watched);
  if (std::unique_ptr<CompiledVariant> v = front.load()) {
    v->report.trace_ms = impl.take_trace_ms();
    v->locations_hash = impl.locations_hash();
    record_compile(impl.name, backend.caps().name, v->report);
    return backend.add_variant(key, std::move(v));
  }

  // 1. The pipeline: typed for this signature, checked against the device, optimized, and lowered as the
  //    backend's row says (its recipe).
  const CompileRecipe& recipe = backend.recipe();
  passes::Specialized specialized = specialize(impl, backend, sig, recipe.lowering);

  // 2. The backend builds the variant (its compiler, its disk cache) from the lowered kernel and its source, which
  //    the row's emitter makes only if the backend asks: a binary the disk cache serves needs none.
  const LazySource source{recipe.emit, &specialized.lowered};
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<CompiledVariant> v = backend.compile({specialized.kernel, specialized.lowered, key, source});
  CompileReport& report = v->report;  // the backend has filled the phases it knows
  // A backend that reports no phases spent all of its time in "compile".
  if (report.codegen_ms + report.compile_ms + report.load_ms == 0) report.compile_ms = ms_since(start);
  report.trace_ms = impl.take_trace_ms();
  report.infer_ms = specialized.typing_ms;
  report.optimize_ms = specialized.optimizing_ms;
  v->typed = std::move(specialized.kernel);
  v->debug_sites = std::move(specialized.checked_sites);
  v->debug_error_param = specialized.error_param;
  v->locations_hash = impl.locations_hash();
  v->prints = std::move(specialized.prints);
  front.store(*v);
  record_compile(impl.name, backend.caps().name, report);
  return backend.add_variant(key, std::move(v));
}

}  // namespace tack::runtime
