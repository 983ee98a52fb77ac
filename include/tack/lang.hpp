// The kernel language: what a kernel body is written in. Everything here builds
// Tack IR while a kernel is traced; nothing computes on data in C++.
#pragma once

#include <tack/dtype.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tack::ir {
struct ExprNode;
}

namespace tack::lang {

using i8 = std::int8_t;
using u8 = std::uint8_t;
using i16 = std::int16_t;
using u16 = std::uint16_t;
using i32 = std::int32_t;
using u32 = std::uint32_t;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using f32 = float;
using f64 = double;

class Value;
class Var;

namespace detail {
using ExprHandle = std::shared_ptr<const ir::ExprNode>;
ExprHandle literal_int(std::int64_t v, DType cpp_type);
ExprHandle literal_uint(std::uint64_t v, DType cpp_type);
ExprHandle literal_float(double v, DType cpp_type);
ExprHandle literal_bool(bool v);
}  // namespace detail

// An immutable expression: arithmetic on Values builds a bigger expression.
// A Value taken from an array element or a Var is that element's or variable's
// value at the point the Value was made, as in ordinary C++.
class Value {
 public:
  template <Arithmetic T>
  Value(T literal) : expr_(make_literal(literal)) {}  // a weak literal
  explicit Value(detail::ExprHandle e) : expr_(std::move(e)) {}

  // A traced value has no truth value while tracing: use if_, select or while_.
  explicit operator bool() const = delete;

  template <Arithmetic T>
  Value cast() const;
  const detail::ExprHandle& expr() const { return expr_; }

 private:
  template <class T>
  static detail::ExprHandle make_literal(T v) {
    using U = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<U, bool>)
      return detail::literal_bool(v);
    else if constexpr (std::is_floating_point_v<U>)
      return detail::literal_float(static_cast<double>(v), dtype_of<U>);
    else if constexpr (std::is_signed_v<U>)
      return detail::literal_int(static_cast<std::int64_t>(v), dtype_of<U>);
    else
      return detail::literal_uint(static_cast<std::uint64_t>(v), dtype_of<U>);
  }
  detail::ExprHandle expr_;
};

// A loop index: a 64-bit signed Value.
using Index = Value;

// A Value with the source line that produced it, so statements can name their line.
struct Located {
  Value value;
  std::source_location loc;
  template <class T>
  requires std::is_constructible_v<Value, T> Located(T&& v, std::source_location l = std::source_location::current())
      : value(std::forward<T>(v)), loc(l) {}
};

// ---- operators -----------------------------------------------------------
Value operator+(const Value& a, const Value& b);
Value operator-(const Value& a, const Value& b);
Value operator*(const Value& a, const Value& b);
Value operator/(const Value& a, const Value& b);  // integers: truncating, x / 0 == 0
Value operator%(const Value& a, const Value& b);  // integers: truncating remainder, x % 0 == 0
Value operator&(const Value& a, const Value& b);
Value operator|(const Value& a, const Value& b);
Value operator^(const Value& a, const Value& b);
Value operator<<(const Value& a, const Value& b);
Value operator>>(const Value& a, const Value& b);
Value operator&&(const Value& a, const Value& b);  // both sides are evaluated
Value operator||(const Value& a, const Value& b);
Value operator==(const Value& a, const Value& b);
Value operator!=(const Value& a, const Value& b);
Value operator<(const Value& a, const Value& b);
Value operator<=(const Value& a, const Value& b);
Value operator>(const Value& a, const Value& b);
Value operator>=(const Value& a, const Value& b);
Value operator-(const Value& a);
Value operator+(const Value& a);
Value operator~(const Value& a);
Value operator!(const Value& a);

// ---- math ----------------------------------------------------------------
Value abs(const Value& x);
Value min(const Value& a, const Value& b);  // floats: a NaN operand yields the other
Value max(const Value& a, const Value& b);
Value clamp(const Value& x, const Value& lo, const Value& hi);  // min(max(x, lo), hi)
Value floor(const Value& x);
Value ceil(const Value& x);
Value round(const Value& x);  // half to even
Value trunc(const Value& x);
Value sqrt(const Value& x);
Value rsqrt(const Value& x);
Value exp(const Value& x);
Value exp2(const Value& x);
Value log(const Value& x);
Value log2(const Value& x);
Value log10(const Value& x);
Value sin(const Value& x);
Value cos(const Value& x);
Value tan(const Value& x);
Value asin(const Value& x);
Value acos(const Value& x);
Value atan(const Value& x);
Value atan2(const Value& y, const Value& x);
Value sinh(const Value& x);
Value cosh(const Value& x);
Value tanh(const Value& x);
Value pow(const Value& x, const Value& y);
Value fma(const Value& a, const Value& b, const Value& c);  // always fused
Value copysign(const Value& x, const Value& sign);
Value isnan(const Value& x);
Value isinf(const Value& x);
Value floordiv(const Value& a, const Value& b);                                // rounds toward -inf; x floordiv 0 == 0
Value floormod(const Value& a, const Value& b);                                // sign of the divisor; x floormod 0 == 0
// Python's and NumPy's a / b: floats divide in their promoted type, integers and bool
// in f64 (i / 2 is f64 for an i64 i; x / 2 stays f32 for an f32 x). `/` keeps C++'s meaning.
Value true_div(const Value& a, const Value& b);
Value select(const Value& cond, const Value& if_true, const Value& if_false);  // evaluates both
Value cast(DType to, const Value& v);
template <Arithmetic T>
Value cast(const Value& v) {
  return cast(dtype_of<T>, v);
}
template <Arithmetic T>
Value Value::cast() const {
  return lang::cast(dtype_of<T>, *this);
}

// ---- variables -----------------------------------------------------------

// A kernel variable: the one thing that may be assigned inside traced control
// flow. Its dtype is inferred per call from everything assigned to it.
class Var {
 public:
  template <class T>
  requires(std::is_constructible_v<Value, T> && !std::is_same_v<std::remove_cvref_t<T>, Var>)
      Var(T&& init, std::source_location loc = std::source_location::current()) {
    declare(Value(std::forward<T>(init)), loc);
  }
  Var(const Var& other, std::source_location loc = std::source_location::current());
  // A template so that assigning a Value is an exact match (a Value also
  // converts to Var); the statement takes the line of the last located call.
  template <class T>
  requires std::is_constructible_v<Value, T> Var& operator=(T&& v) { return assign(Value(std::forward<T>(v))); }
  Var& operator=(const Var& other) { return assign(other.value()); }
  Var& operator+=(Located v);
  Var& operator-=(Located v);
  Var& operator*=(Located v);
  Var& operator/=(Located v);
  Var& operator%=(Located v);
  Var& operator&=(Located v);
  Var& operator|=(Located v);
  Var& operator^=(Located v);
  Var& operator<<=(Located v);
  Var& operator>>=(Located v);
  operator Value() const;  // the variable's current value
  Value value() const { return *this; }
  int id() const { return id_; }
  // Names the variable for tack::inspect, whose IR then shows `v3: f32  # acc`. Debug information only:
  // the kernel's code, hash and cache entries are the same with or without it.
  Var& name(std::string_view name);

 private:
  void declare(const Value& init, const std::source_location& loc);
  Var& assign(const Value& v);
  Var& update(Value v, const std::source_location& loc);
  int id_ = -1;
};

// ---- arrays and parameters -----------------------------------------------

class ArrayBase;

// Where an array lives: a kernel parameter, a workgroup's shared memory, or one work-item's own memory.
enum class ArraySpace : std::uint8_t { Param, Shared, Local };

// One element of an array: reading it gives a Value, assigning stores.
class ElementRef {
 public:
  ElementRef(const ArrayBase& a, Value index, int subscripts, std::source_location loc);
  operator Value() const;  // loads the element now
  ElementRef& operator=(Located v);
  ElementRef& operator=(const ElementRef& v);
  ElementRef& operator+=(Located v);
  ElementRef& operator-=(Located v);
  ElementRef& operator*=(Located v);
  ElementRef& operator/=(Located v);

 private:
  void store(const Value& v, const std::source_location& loc);
  ArraySpace space_;
  int array_;
  Value index_;
  int subscripts_;
  std::source_location loc_;
  friend class ArrayBase;
};

// What element access, atomics and shapes share between Array parameters and
// workgroup shared arrays.
class ArrayBase {
 public:
  ElementRef operator[](Located flat_index) const;
  ElementRef operator()(Located i) const;
  ElementRef operator()(Located i, const Value& j) const;
  ElementRef operator()(Located i, const Value& j, const Value& k) const;
  ElementRef operator()(Located i, const Value& j, const Value& k, const Value& l) const;
  ArraySpace space() const { return space_; }
  int index() const { return index_; }

 protected:
  ArrayBase(ArraySpace space, int index) : space_(space), index_(index) {}
  virtual Value extent(int dim) const = 0;

 private:
  ElementRef subscript(std::initializer_list<Value> idx, const std::source_location& loc) const;
  ArraySpace space_;
  int index_;
};

// An array parameter: dtype and rank come from the call.
class Array : public ArrayBase {
 public:
  explicit Array(int param) : ArrayBase(ArraySpace::Param, param) {}
  Value size() const;          // element count, i64
  Value shape(int dim) const;  // extent of dimension dim, i64; a negative dim counts from the end (-1: the last)
  Value extent(int dim) const override { return shape(dim); }
};

// An array parameter whose dtype is fixed: a call with another dtype is refused.
// (<tack/vector.hpp> adds ArrayOf<Vec3>, ArrayOf<Mat33, float>, ...: arrays of vectors and matrices.)
template <class T, class... Fixed>
class ArrayOf;
template <Arithmetic T>
class ArrayOf<T> : public Array {
 public:
  using Array::Array;
  using element_type = T;
};

namespace detail {
// The front end's promise that `a` has rank n (Python's `h, w = a.shape`): a call
// with another rank is refused at `loc`. Part of the traced kernel and its hash.
void require_rank(const Array& a, int n, std::source_location loc = std::source_location::current());
// The front end's promise that each element of `a` is a vector of `rows` components (cols 0) or a
// rows x cols matrix (2 to 4 each): a call whose array's trailing dimensions are not (rows) or
// (rows, cols) is refused with InvalidArgument before anything runs. Part of the traced kernel and its hash.
void require_element_shape(const Array& a, int rows, int cols,
                           std::source_location loc = std::source_location::current());
}  // namespace detail

// A scalar parameter: its value is passed per call and never recompiles.
class Scalar : public Value {
 public:
  explicit Scalar(int param);
  int param() const { return param_; }

 private:
  int param_;
};

template <Arithmetic T>
class ScalarOf : public Scalar {
 public:
  using Scalar::Scalar;
  using element_type = T;
};

// A 3-D f32 texture parameter (tack::texture3d on the host).
class Texture3D {
 public:
  explicit Texture3D(int param) : param_(param) {}
  // Trilinear at normalized coordinates: 0 and 1 are the centres of the first and last texels.
  Value sample(const Value& u, const Value& v, const Value& w) const;
  int param() const { return param_; }

 private:
  int param_;
};

// ---- per-work-item arrays -----------------------------------------------------

// A work-item's own array of a fixed number of elements, zeroed where it is declared
// (docs/language.md, "Per-work-item arrays"). Index it with any integer Value; it is
// a handle, so helper functions take it by reference. Atomics on it are refused.
class LocalArray : public ArrayBase {
 public:
  LocalArray(int index, std::int64_t count, DType dtype)
      : ArrayBase(ArraySpace::Local, index), count_(count), dtype_(dtype) {}
  Value size() const;                            // the element count, an i64 Value
  std::int64_t count() const { return count_; }  // the same, known while tracing
  DType dtype() const { return dtype_; }
  Value extent(int) const override { return size(); }

 private:
  std::int64_t count_;
  DType dtype_;
};

// Bytes of local arrays one work-item may declare in all (docs/language.md).
inline constexpr std::int64_t kMaxLocalBytes = 16 * 1024;

// Declares a per-work-item array of `count` elements of `dtype`, all zero; only
// inside the body of parallel_for or workgroup_for.
LocalArray local_array(DType dtype, std::int64_t count, std::source_location loc = std::source_location::current());
template <Arithmetic T>
LocalArray local_array(std::int64_t count, std::source_location loc = std::source_location::current()) {
  return local_array(dtype_of<T>, count, loc);
}

// ---- control flow ----------------------------------------------------------

void if_(const Value& cond, const std::function<void()>& then_body,
         std::source_location loc = std::source_location::current());
void if_(const Value& cond, const std::function<void()>& then_body, const std::function<void()>& else_body,
         std::source_location loc = std::source_location::current());
// for (i = lo; i < hi; ++i); i is i64.
void for_range(const Value& lo, const Value& hi, const std::function<void(Index)>& body,
               std::source_location loc = std::source_location::current());
// The condition is a function so it is evaluated afresh before each iteration.
void while_(const std::function<Value()>& cond, const std::function<void()>& body,
            std::source_location loc = std::source_location::current());
void break_(std::source_location loc = std::source_location::current());
void continue_(std::source_location loc = std::source_location::current());

// ---- print -------------------------------------------------------------------

// A print's format, with the line of the call that wrote it.
struct PrintFormat {
  std::string text;
  std::source_location loc;
  template <class S>
  requires std::is_convertible_v<const S&, std::string_view> PrintFormat(
      const S& s, std::source_location l = std::source_location::current())
      : text(std::string_view(s)), loc(l) {}
};

namespace detail {
void print(const PrintFormat& format, const Value* cond, std::vector<Value> args);
}  // namespace detail

// Writes one line to stderr: each `{}` of the format is replaced by the next argument
// (`{{` and `}}` are braces). The lines of a launch are written when it has finished,
// sorted by work-item index (docs/language.md, "Printing").
template <class... Args>
requires(std::is_constructible_v<Value, const Args&>&&...) void print(PrintFormat format, const Args&... args) {
  detail::print(format, nullptr, {Value(args)...});
}
// The same, only for the work-items where cond is true.
template <class... Args>
requires(std::is_constructible_v<Value, const Args&>&&...) void print_if(const Value& cond, PrintFormat format,
                                                                         const Args&... args) {
  detail::print(format, &cond, {Value(args)...});
}

// ---- atomics: return the element's old value -------------------------------
Value atomic_add(const ArrayBase& a, Located index, const Value& v);
Value atomic_sub(const ArrayBase& a, Located index, const Value& v);
Value atomic_min(const ArrayBase& a, Located index, const Value& v);
Value atomic_max(const ArrayBase& a, Located index, const Value& v);
Value atomic_and(const ArrayBase& a, Located index, const Value& v);
Value atomic_or(const ArrayBase& a, Located index, const Value& v);
Value atomic_xor(const ArrayBase& a, Located index, const Value& v);
Value atomic_exchange(const ArrayBase& a, Located index, const Value& v);
// Stores v where the element equals `expected` (bit for bit); returns the old value.
Value atomic_cas(const ArrayBase& a, Located index, const Value& expected, const Value& v);

// ---- parallel loops ---------------------------------------------------------

namespace detail {
std::vector<Value> begin_parallel(std::initializer_list<Value> dims, std::size_t body_arity,
                                  const std::source_location& loc);
void end_parallel();
template <class F, std::size_t... I>
void call_with(F& f, const std::vector<Value>& idx, std::index_sequence<I...>) {
  f(idx[I]...);
}
template <class F>
constexpr std::size_t index_arity() {
  if constexpr (std::is_invocable_v<F&, Value>)
    return 1;
  else if constexpr (std::is_invocable_v<F&, Value, Value>)
    return 2;
  else if constexpr (std::is_invocable_v<F&, Value, Value, Value>)
    return 3;
  else if constexpr (std::is_invocable_v<F&, Value, Value, Value, Value>)
    return 4;
  else
    return 0;
}
}  // namespace detail

// The kernel's parallel loop over [0, n): body(i) runs once for each i, in any order.
template <class F>
void parallel_for(const Value& n, F&& body, std::source_location loc = std::source_location::current()) {
  static_assert(detail::index_arity<F>() == 1, "a 1-D parallel_for body takes one Index");
  auto idx = detail::begin_parallel({n}, 1, loc);
  body(idx[0]);
  detail::end_parallel();
}

// The N-D parallel loop (up to 4 dimensions): body(i, j, ...) for each index tuple.
template <class F>
void parallel_for(std::initializer_list<Value> dims, F&& body,
                  std::source_location loc = std::source_location::current()) {
  constexpr std::size_t n = detail::index_arity<F>();
  static_assert(n >= 1, "a parallel_for body takes one Index per dimension (at most 4)");
  auto idx = detail::begin_parallel(dims, n, loc);
  detail::call_with(body, idx, std::make_index_sequence<n>{});
  detail::end_parallel();
}

// ---- workgroups ---------------------------------------------------------------

// An array in a workgroup's fast shared memory, zeroed when the group starts.
class SharedArray : public ArrayBase {
 public:
  SharedArray(int index, std::int64_t count) : ArrayBase(ArraySpace::Shared, index), count_(count) {}
  Value size() const;
  Value extent(int) const override { return size(); }

 private:
  std::int64_t count_;
};

// The work-item's view of its group inside workgroup_for.
class Group {
 public:
  Value local_id() const;  // 0 .. size() - 1
  Value group_id() const;  // 0 .. num_groups() - 1
  Value size() const;      // work-items per group (256)
  Value num_groups() const;
  Value global_id() const;  // group_id() * size() + local_id()
  SharedArray shared(DType dtype, std::int64_t count, std::source_location loc = std::source_location::current()) const;
  template <Arithmetic T>
  SharedArray shared(std::int64_t count, std::source_location loc = std::source_location::current()) const {
    return shared(dtype_of<T>, count, loc);
  }
  // Every work-item of the group must reach it (not inside divergent control flow).
  void barrier(std::source_location loc = std::source_location::current()) const;
  Value reduce_add(Located v) const;
  Value reduce_min(Located v) const;
  Value reduce_max(Located v) const;
};

// Runs num_groups groups of Group::size() work-items each; every work-item runs body.
void workgroup_for(const Value& num_groups, const std::function<void(Group)>& body,
                   std::source_location loc = std::source_location::current());

}  // namespace tack::lang
