// Kernels: a C++ function traced once into Tack IR, specialized and compiled per
// argument signature, launched by calling it with arrays and scalars.
#pragma once

#include <tack/arg_kind.hpp>
#include <tack/array.hpp>
#include <tack/dtype.hpp>
#include <tack/kernel_options.hpp>
#include <tack/lang.hpp>
#include <tack/reflect.hpp>
#include <tack/texture.hpp>

#include <bit>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tack {

namespace runtime {
struct KernelImpl;
}
namespace detail {
struct Access;
}

// Describes an array argument without data, for tack::inspect and precompile.
struct ArraySpec {
  DType dtype = DType::F32;
  int rank = 1;
};
// Describes a scalar argument by its dtype alone (weak: as a Python number), for precompile and inspect.
struct ScalarSpec {
  DType dtype = DType::F32;
  bool weak = false;
};

// One argument of a kernel call, as the runtime sees it. Arrays and textures
// are referenced, not copied: a KernelArg lives only for the call.
struct KernelArg {
  ArgKind kind = ArgKind::Scalar;
  DType dtype = DType::F32;
  int rank = 0;
  std::uint64_t bits = 0;  // a scalar's value, as tack's IR holds it
  // A weak scalar (a Python int or float) adapts to the other operand wherever it
  // is used, as a literal does; its dtype (i64, u64 or f64) only holds the value.
  bool weak = false;
  // An ArraySpec: an array described by dtype and rank, with no data (inspect and precompile only).
  bool spec_only = false;
  const tack::Array* array = nullptr;
  const tack::Texture* texture = nullptr;

  KernelArg() = default;  // the scalar 0 (i32)
  KernelArg(const tack::Array& a) : kind(ArgKind::Array), array(&a) {}
  KernelArg(const tack::Texture& t) : kind(ArgKind::Texture), dtype(DType::F32), texture(&t) {}
  KernelArg(const tack::ArraySpec& s) : kind(ArgKind::Array), dtype(s.dtype), rank(s.rank), spec_only(true) {}
  KernelArg(const tack::ScalarSpec& s) : kind(ArgKind::Scalar), dtype(s.dtype), weak(s.weak) {}
  template <Arithmetic T>
  KernelArg(T v) : kind(ArgKind::Scalar), dtype(dtype_of<T>), bits(to_bits(v)) {}

 private:
  template <class T>
  static std::uint64_t to_bits(T v) {
    using U = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<U, float>)
      return std::bit_cast<std::uint32_t>(v);
    else if constexpr (std::is_same_v<U, double>)
      return std::bit_cast<std::uint64_t>(v);
    else if constexpr (std::is_same_v<U, bool>)
      return v ? 1 : 0;
    else if constexpr (std::is_signed_v<U>)
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    else
      return static_cast<std::uint64_t>(v);
  }
};

namespace detail {

// One kernel parameter as the function's signature declares it.
struct ParamSpec {
  ArgKind kind = ArgKind::Array;
  bool fixed = false;  // ArrayOf<T>, ScalarOf<T>, Texture3D: a call with another dtype is refused
  DType dtype = DType::F32;
};

// The kinds of one kernel parameter: each specialization is one (the one list to extend).
template <class P>
struct param_traits {};
template <>
struct param_traits<lang::Array> {
  static ParamSpec spec() { return {ArgKind::Array}; }
};
template <Arithmetic T>
struct param_traits<lang::ArrayOf<T>> {
  static ParamSpec spec() { return {ArgKind::Array, true, dtype_of<T>}; }
};
template <>
struct param_traits<lang::Scalar> {
  static ParamSpec spec() { return {ArgKind::Scalar}; }
};
template <class T>
struct param_traits<lang::ScalarOf<T>> {
  static ParamSpec spec() { return {ArgKind::Scalar, true, dtype_of<T>}; }
};
template <>
struct param_traits<lang::Texture3D> {
  static ParamSpec spec() { return {ArgKind::Texture, true, DType::F32}; }
};

template <class F>
struct signature : signature<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct signature<R (C::*)(A...) const> {
  using args = std::tuple<std::remove_cvref_t<A>...>;
};
template <class C, class R, class... A>
struct signature<R (C::*)(A...)> {
  using args = std::tuple<std::remove_cvref_t<A>...>;
};
template <class R, class... A>
struct signature<R (*)(A...)> {
  using args = std::tuple<std::remove_cvref_t<A>...>;
};
template <class R, class... A>
struct signature<R(A...)> : signature<R (*)(A...)> {};

template <class P>
concept ParamLeaf = requires {
  { param_traits<P>::spec() } -> std::same_as<ParamSpec>;
};
// A struct parameter: an aggregate of parameters (and of such structs), which the
// kernel takes as one argument, tack::bundle(...), and the runtime as its fields.
template <class P>
concept ParamStruct = !ParamLeaf<P> && reflect::Aggregate<P>;

// The tag of a parameter's constructor that records nothing in the trace (ParamMaker, below).
struct Untraced {};

// Makes parameters in order, numbering the leaves (the runtime's parameters) and noting their specs.
struct ParamMaker {
  int next = 0;
  std::vector<ParamSpec>* specs = nullptr;
  template <class P>
  P operator()() {
    if constexpr (ParamLeaf<P>) {
      if (specs) {
        // Counting the parameters happens outside any trace: a parameter type whose constructor
        // records something in the trace (ArrayOf<Vec3>'s element shape) offers an untraced one.
        specs->push_back(param_traits<P>::spec());
        if constexpr (std::is_constructible_v<P, Untraced, int>) return P(Untraced{}, next++);
      }
      return P(next++);
    } else {
      static_assert(ParamStruct<P>,
                    "a kernel parameter must be tack::lang::Array, ArrayOf<T>, Scalar, ScalarOf<T>, Texture3D, or a "
                    "struct of those");
      return reflect::build<P>(*this);
    }
  }
};

// The leaves' specs, and per declared parameter -1 (one leaf) or its struct's leaf count.
struct ParamLayout {
  std::vector<ParamSpec> specs;
  std::vector<int> groups;
};
template <class Tuple, std::size_t... I>
ParamLayout param_layout(std::index_sequence<I...>) {
  ParamLayout out;
  ParamMaker make{0, &out.specs};
  auto one = [&]<class P>() {
    const std::size_t before = out.specs.size();
    (void)make.template operator()<P>();
    out.groups.push_back(ParamStruct<P> ? static_cast<int>(out.specs.size() - before) : -1);
  };
  (one.template operator()<std::tuple_element_t<I, Tuple>>(), ...);
  return out;
}
template <class Tuple, class F, std::size_t... I>
void invoke_traced(F& f, std::index_sequence<I...>) {
  ParamMaker make;
  Tuple params{make.template operator()<std::tuple_element_t<I, Tuple>>()...};  // braced: made in order
  std::apply(f, params);
}

std::shared_ptr<runtime::KernelImpl> make_kernel(std::string name, std::vector<ParamSpec> params,
                                                 std::function<void()> body, std::source_location loc,
                                                 const KernelOptions& options);

}  // namespace detail

// The argument of a struct parameter: its fields' arrays and numbers, in the struct's order.
template <class... A>
struct Bundle {
  std::tuple<const A&...> fields;
};
template <class... A>
Bundle<A...> bundle(const A&... fields) {
  return {{fields...}};
}

namespace detail {
template <class A>
inline constexpr bool is_bundle = false;
template <class... A>
inline constexpr bool is_bundle<Bundle<A...>> = true;
// Appends one argument's KernelArgs; `given` gets -1 for a plain argument, a bundle's size for a bundle.
template <class A>
void append_arg(std::vector<KernelArg>& flat, std::vector<int>& given, const A& a) {
  if constexpr (is_bundle<A>) {
    given.push_back(static_cast<int>(std::tuple_size_v<decltype(a.fields)>));
    std::apply([&](const auto&... f) { (flat.push_back(KernelArg(f)), ...); }, a.fields);
  } else {
    given.push_back(-1);
    flat.push_back(KernelArg(a));
  }
}
// The arguments with every bundle replaced by its fields (ArraySpecs and ScalarSpecs may be fields too).
template <class... A>
std::vector<KernelArg> flatten_args(const A&... args) {
  std::vector<KernelArg> flat;
  std::vector<int> given;
  (append_arg(flat, given, args), ...);
  return flat;
}
}  // namespace detail

class Kernel {
 public:
  Kernel() = default;
  explicit Kernel(std::shared_ptr<runtime::KernelImpl> impl) : impl_(std::move(impl)) {}
  // A kernel with struct parameters: per declared parameter -1 or its struct's leaf count.
  Kernel(std::shared_ptr<runtime::KernelImpl> impl, std::vector<int> param_groups);

  // Launches on the device of the array arguments (the default device if none).
  // GPU launches are queued and return at once; the host waits where it reads.
  // A struct parameter takes tack::bundle(field, field, ...).
  template <class... A>
  void operator()(const A&... args) const {
    if constexpr ((detail::is_bundle<A> || ...)) {
      launch_bundled(args...);
    } else {
      if (groups_) return launch_bundled(args...);
      const KernelArg list[] = {KernelArg(args)..., KernelArg(0)};
      launch(std::span<const KernelArg>(list, sizeof...(A)));
    }
  }
  void launch(std::span<const KernelArg> args) const;

  // Compiles (or loads from the disk cache) the variant these arguments select
  // on `device` without launching anything; arrays may be ArraySpecs, scalars
  // ScalarSpecs. A later call with arguments of the same kinds, dtypes and
  // ranks finds it in memory. tack::precompile does many at once, in parallel.
  template <class... A>
  void precompile(const Device& device, const A&... args) const {
    if constexpr ((detail::is_bundle<A> || ...)) {
      precompile_args(device, detail::flatten_args(args...));
    } else {
      const KernelArg list[] = {KernelArg(args)..., KernelArg(0)};
      precompile_args(device, std::span<const KernelArg>(list, sizeof...(A)));
    }
  }
  void precompile_args(const Device& device, std::span<const KernelArg> args) const;

  const std::string& name() const;
  // The traced, untyped IR as text (traces the kernel if it was not yet).
  std::string ir() const;

 private:
  friend struct detail::Access;
  template <class... A>
  void launch_bundled(const A&... args) const {
    std::vector<KernelArg> flat;
    std::vector<int> given;
    (detail::append_arg(flat, given, args), ...);
    check_bundles(flat, given);
    launch(flat);
  }
  // Refuses bundles that do not match the struct parameters (count, kinds), naming the field.
  void check_bundles(std::span<const KernelArg> flat, std::span<const int> given) const;
  std::shared_ptr<runtime::KernelImpl> impl_;
  std::shared_ptr<const std::vector<int>> groups_;  // null: no struct parameters
};

// Makes a kernel from a function whose parameters are lang::Array, ArrayOf<T>,
// Scalar, ScalarOf<T>, Texture3D, or structs of those (docs/language.md, "Structs"). The function is traced once, at first use;
// values it captures are frozen then. `options` (e.g. {.fp_contract = false})
// are fixed here; a bad TACK_FP_CONTRACT is refused here with InvalidArgument.
template <class F>
Kernel kernel(std::string name, const KernelOptions& options, F fn,
              std::source_location loc = std::source_location::current()) {
  using Args = typename detail::signature<std::remove_cvref_t<F>>::args;
  constexpr std::size_t n = std::tuple_size_v<Args>;
  auto layout = detail::param_layout<Args>(std::make_index_sequence<n>{});
  auto body = [f = std::move(fn)]() mutable { detail::invoke_traced<Args>(f, std::make_index_sequence<n>{}); };
  auto impl = detail::make_kernel(std::move(name), std::move(layout.specs), std::move(body), loc, options);
  for (int g : layout.groups)
    if (g >= 0) return Kernel(std::move(impl), std::move(layout.groups));
  return Kernel(std::move(impl));
}
template <class F>
Kernel kernel(std::string name, F fn, std::source_location loc = std::source_location::current()) {
  return kernel(std::move(name), KernelOptions{}, std::move(fn), loc);
}

// What a kernel becomes for given arguments on a backend, without running it.
struct Inspection {
  std::string ir;        // the traced IR
  std::string typed_ir;  // after type inference and optimization, for these arguments
  std::string source;    // the code the backend compiles (for interp, the typed IR)
};

Inspection inspect_args(const Kernel& k, std::string_view backend, std::span<const KernelArg> args);
template <class... A>
Inspection inspect(const Kernel& k, std::string_view backend, const A&... args) {
  if constexpr ((detail::is_bundle<A> || ...)) {
    return inspect_args(k, backend, detail::flatten_args(args...));
  } else {
    const KernelArg list[] = {KernelArg(args)..., KernelArg(0)};
    return inspect_args(k, backend, std::span<const KernelArg>(list, sizeof...(A)));
  }
}

// Debug mode: every array access checked (see docs/semantics.md).
void set_debug(bool on);
bool debug();

}  // namespace tack
