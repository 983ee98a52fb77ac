// Kernels from Python: a kernel object like the ones a C++ tack::kernel makes
// (api::make_kernel), whose body runs the Python front end when it is traced;
// the call path (argument conversion, launch) is here, in C++, so a warm call
// from Python costs little more than the C++ call; and tack.inspect.
#include "bindings.hpp"
#include "python_words.hpp"

#include "api/frontend.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <Python.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tack::python {
namespace {

std::string arg_type(nb::handle h) { return nb::type_name(h.type()).c_str(); }

// Why an argument cannot be passed; a NumPy value of a dtype Tack lacks (np.float16(1), a
// complex array) is named with its dtype, which converting it first would fix.
std::string unpassable(nb::handle h) {
  std::string out = "a " + arg_type(h) + " cannot be passed to a kernel";
  nb::object why = nb::module_::import_("tack._dtypes").attr("numpy_refusal")(h);
  if (!why.is_none()) out += ": " + nb::cast<std::string>(why);
  return out + "; pass a tack.Array (Device.array() copies a NumPy array), a tack.Texture or a number";
}

// A Python number passed to a ScalarOf<T> parameter becomes a T, as C++'s
// conversion at the call would; one that T cannot hold exactly is refused.
void convert_to_fixed(KernelArg& a, DType fixed, const std::string& kernel, std::size_t i) {
  if (a.dtype == fixed) {
    a.weak = false;
    return;
  }
  auto refuse = [&](const std::string& why) {
    throw TypeError("kernel '" + kernel + "', argument " + std::to_string(i) + ": the parameter is declared ScalarOf<" +
                    std::string(dtype_name(fixed)) + ">, " + why);
  };
  if (!a.weak) refuse("got a scalar of dtype " + std::string(dtype_name(a.dtype)) + "; convert it first");
  if (is_float(a.dtype) && !is_float(fixed)) refuse("got a Python float");
  if (is_integer(a.dtype) && is_integer(fixed)) {
    const std::uint64_t back = api::cast_bits(fixed, a.dtype, api::cast_bits(a.dtype, fixed, a.bits));
    const bool sign_flip = (a.dtype == DType::I64 && is_unsigned_int(fixed) && static_cast<std::int64_t>(a.bits) < 0) ||
                           (a.dtype == DType::U64 && is_signed_int(fixed) && a.bits > std::uint64_t(INT64_MAX));
    if (back != a.bits || sign_flip) refuse("and the Python int does not fit it");
  }
  a.bits = api::cast_bits(a.dtype, fixed, a.bits);
  a.dtype = fixed;
  a.weak = false;
}

// Slots for one call's arguments: the most a kernel takes, and one more, so that a call with one
// too many is seen (and refused) without overflowing.
constexpr std::size_t kArgSlots = api::kMaxKernelParams + 1;

// The arguments of one call, converted without allocating.
struct CallArgs {
  std::array<KernelArg, kArgSlots> items;
  std::size_t count = 0;
};

// The texture type, looked up once: nb::isinstance<T> searches nanobind's type
// map on every call, which a warm launch cannot afford three times (arrays are
// tested against g_array_class, the registered tack.Array, the same way).
PyTypeObject* g_texture_type = nullptr;

void convert_args(const api::KernelSignature& sig, const nb::handle* args, std::size_t n, bool for_inspect,
                  CallArgs& out) {
  if (n > static_cast<std::size_t>(api::kMaxKernelParams))
    throw InvalidArgument("kernel '" + sig.name + "' got " + std::to_string(n) + " arguments; at most " +
                          std::to_string(api::kMaxKernelParams) + " are supported");
  out.count = n;
  for (std::size_t i = 0; i < n; ++i) {
    nb::handle h = args[i];
    KernelArg& a = out.items[i];
    PyTypeObject* type = Py_TYPE(h.ptr());
    if (type == g_array_class) {
      a = KernelArg(*nb::inst_ptr<Array>(h));
    } else if (type == g_texture_type) {
      a = KernelArg(*nb::inst_ptr<Texture>(h));
    } else if (for_inspect && nb::isinstance<ArraySpec>(h)) {
      a = KernelArg(*nb::inst_ptr<ArraySpec>(h));
    } else if (for_inspect && nb::isinstance<DType>(h)) {
      a = KernelArg(ScalarSpec{nb::cast<DType>(h), false});  // a scalar of this dtype (strong)
    } else if (for_inspect &&
               (h.is(reinterpret_cast<PyObject*>(&PyFloat_Type)) || h.is(reinterpret_cast<PyObject*>(&PyLong_Type)))) {
      // The types float and int: the weak scalar a Python number passes.
      a = KernelArg(ScalarSpec{h.is(reinterpret_cast<PyObject*>(&PyFloat_Type)) ? DType::F64 : DType::I64, true});
    } else if (scalar_arg(h, a)) {
      if (i < sig.params.size() && sig.params[i].kind == ArgKind::Scalar && sig.params[i].fixed)
        convert_to_fixed(a, sig.params[i].dtype, sig.name, i);
    } else {
      throw TypeError("kernel '" + sig.name + "', argument " + std::to_string(i) + ": " + unpassable(h));
    }
  }
}

void init_kernel(Kernel* self, const std::string& name,
                 const std::vector<std::pair<ArgKind, std::optional<DType>>>& params, nb::object body,
                 const std::string& file, int line, const std::vector<std::string>& param_names,
                 std::optional<bool> fp_contract) {
  if (name.empty()) throw InvalidArgument("a kernel needs a name");
  if (!param_names.empty() && param_names.size() != params.size())
    throw InvalidArgument("kernel '" + name + "': " + std::to_string(param_names.size()) + " parameter names for " +
                          std::to_string(params.size()) + " parameters");
  if (!param_names.empty()) register_kernel_params(name, param_names);
  api::KernelDefinition def{name, {}, param_names, file, line, fp_contract, {}};
  for (const auto& [kind, fixed] : params) {
    detail::ParamSpec s{kind};
    if (kind == ArgKind::Texture) {
      s.fixed = true;
      s.dtype = DType::F32;
    } else if (fixed) {
      s.fixed = true;
      s.dtype = *fixed;
    }
    def.params.push_back(s);
  }
  auto fn = std::make_shared<PyRef>(std::move(body));
  std::vector<ArgKind> kinds;
  for (const auto& p : params) kinds.push_back(p.first);
  // Traced on first use, maybe on a thread that released the GIL to launch.
  def.trace = [fn, kinds] {
    nb::gil_scoped_acquire gil;
    nb::list list;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      const int p = static_cast<int>(i);
      if (kinds[i] == ArgKind::Array)
        list.append(nb::cast(lang::Array(p)));
      else if (kinds[i] == ArgKind::Scalar)
        list.append(nb::cast(lang::Scalar(p)));
      else
        list.append(nb::cast(lang::Texture3D(p)));
    }
    // The body holds the Python kernel through a weak reference only (tack/_kernel.py),
    // so keeping it for a later re-trace makes no cycle through C++ that Python's
    // collector cannot see.
    fn->object(list);
  };
  new (self) Kernel(api::make_kernel(std::move(def)));
}

// Keyword arguments at a call, as a Python function takes them: each fills the
// place of the parameter of its name; `handles` gets every argument in order.
std::size_t bind_keywords(const api::KernelSignature& sig, const nb::args& args, const nb::kwargs& kwargs,
                          std::array<nb::handle, kArgSlots>& handles) {
  const auto& names = sig.param_names;
  const std::string who = "kernel '" + sig.name + "'";
  if (names.empty())
    throw TypeError(who + " takes its arguments by position: it was written in C++, whose parameter names Tack "
                          "cannot see");
  if (args.size() > names.size())
    throw TypeError(who + " takes " + std::to_string(names.size()) + " arguments but " +
                    std::to_string(args.size()) + " were given");
  std::array<bool, kArgSlots> given{};
  for (std::size_t i = 0; i < args.size(); ++i) {
    handles[i] = args[i];
    given[i] = true;
  }
  for (auto [key, value] : kwargs) {
    const std::string name = nb::cast<std::string>(key);
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw TypeError(who + " got an unexpected keyword argument '" + name + "' (its parameters: " + all + ")");
    }
    const auto i = static_cast<std::size_t>(it - names.begin());
    if (given[i]) throw TypeError(who + " got multiple values for argument '" + name + "'");
    handles[i] = value;
    given[i] = true;
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!given[i]) throw TypeError(who + " is missing argument '" + names[i] + "'");
  return names.size();
}

void launch_kernel(const Kernel& k, const api::KernelSignature& sig, const nb::handle* handles, std::size_t n) {
  CallArgs call;
  convert_args(sig, handles, n, false, call);  // refuses more than kMaxKernelParams before reading any
  nb::gil_scoped_release release;
  k.launch(std::span<const KernelArg>(call.items.data(), call.count));
}

// The call with keyword arguments: a second overload, so that the positional
// fast path below pays nothing for them (nanobind builds no kwargs dict there).
void call_kernel_keywords(const Kernel& k, nb::args args, nb::kwargs kwargs) {
  check_globals(k);
  const api::KernelSignature sig = api::signature(k);
  std::array<nb::handle, kArgSlots> handles;
  const std::size_t n = bind_keywords(sig, args, kwargs, handles);
  launch_kernel(k, sig, handles.data(), n);
}

// tp_vectorcall-free fast path: nanobind hands the positional arguments over as a tuple.
void call_kernel(const Kernel& k, nb::args args) {
  check_globals(k);
  const api::KernelSignature sig = api::signature(k);
  std::size_t n = args.size();
  std::array<nb::handle, kArgSlots> handles;
  // A count that does not match is refused as a Python function refuses it (bind_keywords throws).
  if (!sig.param_names.empty() && n != sig.param_names.size()) bind_keywords(sig, args, nb::kwargs(), handles);
  for (std::size_t i = 0; i < std::min(n, handles.size()); ++i) handles[i] = args[i];
  launch_kernel(k, sig, handles.data(), n);
}

// tack.precompile: [(kernel, [args...]), ...], compiled `threads` at a time with the GIL released.
void precompile_kernels(const Device& device, const nb::sequence& requests, int threads) {
  std::vector<PrecompileRequest> list;
  for (nb::handle r : requests) {
    nb::sequence pair = nb::borrow<nb::sequence>(r);
    if (nb::len(pair) != 2 || !nb::isinstance<Kernel>(pair[0]))
      throw TypeError("precompile takes (kernel, arguments) pairs");
    const Kernel& k = nb::cast<const Kernel&>(pair[0]);
    check_globals(k);
    std::vector<nb::handle> handles;
    for (nb::handle h : nb::borrow<nb::sequence>(pair[1])) handles.push_back(h);
    CallArgs call;
    convert_args(api::signature(k), handles.data(), handles.size(), true, call);
    // The KernelArgs point into arrays and textures that `requests` holds for the whole call.
    list.push_back({k, std::vector<KernelArg>(call.items.begin(), call.items.begin() + call.count)});
  }
  nb::gil_scoped_release release;
  tack::precompile(device, list, threads);
}

Inspection inspect_kernel(const Kernel& k, const std::string& backend, const nb::sequence& args) {
  check_globals(k);
  std::vector<nb::handle> handles;
  for (nb::handle h : args) handles.push_back(h);
  CallArgs call;
  convert_args(api::signature(k), handles.data(), handles.size(), true, call);
  nb::gil_scoped_release release;
  return inspect_args(k, backend, std::span<const KernelArg>(call.items.data(), call.count));
}

}  // namespace

nb::object wrap_kernel(Kernel k) { return nb::cast(std::move(k)); }

void bind_kernels(nb::module_& m) {
  g_texture_type = reinterpret_cast<PyTypeObject*>(nb::type<Texture>().ptr());
  // The kinds of tack/_types.py's ParamSpec, by the same names.
  nb::enum_<ArgKind>(m, "ArgKind")
      .value("array", ArgKind::Array)
      .value("scalar", ArgKind::Scalar)
      .value("texture", ArgKind::Texture);

  nb::class_<ArraySpec>(m, "ArraySpec")
      .def(nb::init<>())
      .def(
          "__init__",
          [](ArraySpec* s, DType t, int rank) {
            new (s) ArraySpec{t, rank};
          },
          nb::arg("dtype"), nb::arg("rank") = 1)
      .def_ro("_dtype", &ArraySpec::dtype)
      .def_ro("rank", &ArraySpec::rank);

  nb::class_<Inspection>(m, "Inspection",
                         "What tack.inspect returns: a kernel's code at each stage, for one backend and one set of "
                         "argument dtypes and ranks.")
      .def_ro("ir", &Inspection::ir, "The traced IR, untyped, as the kernel's body wrote it.")
      .def_ro("typed_ir", &Inspection::typed_ir, "The IR after type inference and optimization, for these arguments.")
      .def_ro("source", &Inspection::source,
              "The code the backend compiles: LLVM IR (cpu), OpenCL C, CUDA C++, MSL, ...; the typed IR for interp.");

  // The kernel object tack.kernel returns (tack.Kernel subclasses it in Python).
  nb::class_<Kernel>(m, "Kernel", nb::is_weak_referenceable())
      .def("__init__", &init_kernel, nb::arg("name"), nb::arg("params"), nb::arg("body"), nb::arg("file"),
           nb::arg("line"), nb::arg("param_names") = std::vector<std::string>{}, nb::arg("fp_contract") = nb::none())
      .def_prop_ro(
          "name", [](const Kernel& k) { return api::signature(k).name; },
          "The kernel's name, as its variants, tack.inspect and messages show it.")
      .def(
          "ir",
          [](const Kernel& k) {
            check_globals(k);
            return k.ir();
          },
          "The traced, untyped IR (traces the kernel)")
      .def("__call__", &call_kernel)
      .def("__call__", &call_kernel_keywords);

  // Derivative kernels (docs/autodiff.md): plain _core.Kernels, called with the primal's arguments and then one
  // gradient (tangent) array per array parameter.
  m.def("_adjoint", [](const Kernel& k) { return tack::adjoint(k); }, nb::arg("kernel"));
  m.def("_jvp", [](const Kernel& k) { return tack::jvp(k); }, nb::arg("kernel"));
  // tack.Tape's core (python/tack/_autodiff.py holds the context manager): a Tape and its recording.
  struct PyTape {
    Tape tape;
    std::optional<Tape::Recording> recording;
  };
  nb::class_<PyTape>(m, "_Tape")
      .def(nb::init<>())
      .def("_start",
           [](PyTape& t) {
             if (!t.recording) t.recording.emplace(t.tape.record());
           })
      .def("_stop", [](PyTape& t) { t.recording.reset(); })
      .def("backward", [](PyTape& t, const Array& loss) { t.tape.backward(loss); }, nb::arg("loss"))
      .def(
          "_backward_seeds",
          [](PyTape& t, const std::vector<std::pair<Array, Array>>& seeds) { t.tape.backward(seeds); },
          nb::arg("seeds"))
      .def("zero", [](PyTape& t) { t.tape.zero(); })
      .def("reset", [](PyTape& t) { t.tape.reset(); })
      .def("__len__", [](const PyTape& t) { return t.tape.size(); });
  m.def("inspect", &inspect_kernel, nb::arg("kernel"), nb::arg("backend"), nb::arg("args"));
  m.def("_precompile", &precompile_kernels, nb::arg("device"), nb::arg("requests"), nb::arg("threads"));

  nb::class_<CompileStats>(m, "CompileStats", "What making kernel variants has cost this process (compile_stats()).")
      .def_ro("variants", &CompileStats::variants, "Variants made: compiled, or loaded from the disk cache.")
      .def_ro("disk_hits", &CompileStats::disk_hits, "Of the variants, those the disk cache served.")
      .def_ro("disk_misses", &CompileStats::disk_misses, "Of the variants, those compiled with the disk cache on.")
      .def_ro("front_hits", &CompileStats::front_hits,
              "Of the disk hits, those found before type inference (the CPU's front index).")
      .def_ro("trace_ms", &CompileStats::trace_ms, "Milliseconds tracing kernels (once per kernel).")
      .def_ro("infer_ms", &CompileStats::infer_ms, "Milliseconds in type inference (and debug-mode checks).")
      .def_ro("optimize_ms", &CompileStats::optimize_ms, "Milliseconds in the optimizer on Tack's IR.")
      .def_ro("codegen_ms", &CompileStats::codegen_ms, "Milliseconds generating the backend's code.")
      .def_ro("compile_ms", &CompileStats::compile_ms, "Milliseconds in the backend's compiler.")
      .def_ro("load_ms", &CompileStats::load_ms, "Milliseconds loading compiled or cached code.")
      .def("__repr__", [](const CompileStats& s) {
        return "CompileStats(variants=" + std::to_string(s.variants) + ", disk_hits=" + std::to_string(s.disk_hits) +
               ", disk_misses=" + std::to_string(s.disk_misses) + ", front_hits=" + std::to_string(s.front_hits) +
               ", compile_ms=" + std::to_string(s.compile_ms) + ", ...)";
      });
  m.def(
      "compile_stats", &tack::compile_stats,
      "What making kernel variants has cost this process so far: variants, disk_hits, disk_misses, front_hits and the "
      "milliseconds of each phase (trace_ms, infer_ms, optimize_ms, codegen_ms, compile_ms, load_ms).");
  m.def("reset_compile_stats", &tack::reset_compile_stats, "Sets every figure of compile_stats() back to zero.");
}

}  // namespace tack::python
