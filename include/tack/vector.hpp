// Small vectors, matrices and quaternions in the kernel language: Vec2 Vec3 Vec4,
// Mat22 Mat33 Mat44 and Quat, their Vars, and array parameters of them
// (ArrayOf<Vec3>). Everything lowers to scalar Values while the kernel is traced
// (docs/language.md, "Vectors, matrices and quaternions"): no IR of its own, so
// every backend runs them unchanged. The formulas, operand order included, are
// the ones the Python front end uses, so a kernel written in either traces alike.
#pragma once

#include <tack/kernel.hpp>
#include <tack/lang.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <source_location>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tack::lang {

// A component index known while tracing (v[k], m(i, j)), with the line that wrote it.
struct ConstIndex {
  int k;
  std::source_location loc;
  ConstIndex(int i, std::source_location l = std::source_location::current()) : k(i), loc(l) {}
};

namespace detail {
// The named components x y z w of a 2- to 4-component thing holding E (a Value or a Var).
template <class E, int N>
struct Fields;
template <class E>
struct Fields<E, 2> {
  E x, y;
};
template <class E>
struct Fields<E, 3> {
  E x, y, z;
};
template <class E>
struct Fields<E, 4> {
  E x, y, z, w;
};

// InvalidArgument naming the index, the size and the line (and the kernel while one is traced).
[[noreturn]] void bad_component_index(const char* type, int index, int size, const std::source_location& loc);

template <class E, int N>
E& field(Fields<E, N>& f, int k) {
  if constexpr (N == 4)
    if (k == 3) return f.w;
  if constexpr (N >= 3)
    if (k == 2) return f.z;
  return k == 0 ? f.x : f.y;
}
}  // namespace detail

// ---- the value types ----------------------------------------------------------

// N components (2 to 4), each an ordinary Value: promotion and weak literals apply per component.
template <int N>
class Vec : public detail::Fields<Value, N> {
  static_assert(N >= 2 && N <= 4, "vectors have 2 to 4 components");

 public:
  static constexpr int kRows = N, kCols = 0, kCount = N;
  using value_type = Vec;

  template <class... T>
  requires(sizeof...(T) == N && (std::is_constructible_v<Value, const T&> && ...)) Vec(const T&... c)
      : detail::Fields<Value, N>{Value(c)...} {}

  const Value& operator[](ConstIndex i) const { return const_cast<Vec&>(*this)[i]; }
  Value& operator[](ConstIndex i) {
    if (i.k < 0 || i.k >= N) detail::bad_component_index(kName, i.k, N, i.loc);
    return detail::field(*this, i.k);
  }
  // Component k (0 .. N-1) unchecked; what the generic code below reads.
  const Value& c(int k) const { return detail::field(const_cast<Vec&>(*this), k); }
  const Vec& value() const { return *this; }

  // f(k) for each component k in order.
  template <class F>
  static Vec from_flat(F&& f) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) { return Vec(f(static_cast<int>(K))...); }
    (std::make_index_sequence<N>{});
  }
  template <Arithmetic T>
  Vec cast() const {
    return from_flat([&](int k) { return lang::cast<T>(c(k)); });
  }

  static constexpr const char* kName = N == 2 ? "vec2" : N == 3 ? "vec3" : "vec4";
};
using Vec2 = Vec<2>;
using Vec3 = Vec<3>;
using Vec4 = Vec<4>;

// R rows of C columns (2 to 4 each), stored as R row vectors.
template <int R, int C>
class Mat {
  static_assert(R >= 2 && R <= 4 && C >= 2 && C <= 4, "matrices have 2 to 4 rows and columns");

 public:
  static constexpr int kRows = R, kCols = C, kCount = R * C;
  using value_type = Mat;

  // R*C values row by row.
  template <class... T>
  requires(sizeof...(T) == R * C && (std::is_constructible_v<Value, const T&> && ...)) Mat(const T&... v)
      : Mat(std::array<Value, R * C>{Value(v)...}) {}
  // R row vectors.
  template <class... T>
  requires(sizeof...(T) == R && (std::same_as<T, Vec<C>> && ...)) Mat(const T&... rows) : rows_{rows...} {}
  explicit Mat(const std::array<Value, R * C>& flat)
      : rows_(make_rows([&](int i) { return Vec<C>::from_flat([&](int j) { return flat[i * C + j]; }); })) {}

  Vec<C>& operator[](ConstIndex i) {
    if (i.k < 0 || i.k >= R) detail::bad_component_index(kName, i.k, R, i.loc);
    return rows_[static_cast<std::size_t>(i.k)];
  }
  const Vec<C>& operator[](ConstIndex i) const { return const_cast<Mat&>(*this)[i]; }
  Value& operator()(int i, int j, std::source_location loc = std::source_location::current()) {
    if (i < 0 || i >= R) detail::bad_component_index(kName, i, R, loc);
    if (j < 0 || j >= C) detail::bad_component_index(kName, j, C, loc);
    return detail::field(rows_[static_cast<std::size_t>(i)], j);
  }
  const Value& operator()(int i, int j, std::source_location loc = std::source_location::current()) const {
    return const_cast<Mat&>(*this)(i, j, loc);
  }
  const Value& at(int i, int j) const { return rows_[static_cast<std::size_t>(i)].c(j); }
  const Value& c(int k) const { return at(k / C, k % C); }
  const Vec<C>& row(int i) const { return rows_[static_cast<std::size_t>(i)]; }
  Vec<R> col(int j) const {
    return Vec<R>::from_flat([&](int i) { return at(i, j); });
  }
  const Mat& value() const { return *this; }

  // f(k) for each entry k = i * C + j in row-major order.
  template <class F>
  static Mat from_flat(F&& f) {
    return Mat(make_rows([&](int i) { return Vec<C>::from_flat([&](int j) { return f(i * C + j); }); }));
  }
  // f(i, j) for each entry, row by row.
  template <class F>
  static Mat from_entries(F&& f) {
    return from_flat([&](int k) { return f(k / C, k % C); });
  }
  template <Arithmetic T>
  Mat cast() const {
    return from_flat([&](int k) { return lang::cast<T>(c(k)); });
  }

  static constexpr const char* kName = R == 2 && C == 2   ? "mat22"
                                       : R == 3 && C == 3 ? "mat33"
                                       : R == 4 && C == 4 ? "mat44"
                                                          : "mat";

 private:
  explicit Mat(std::array<Vec<C>, R> rows) : rows_(std::move(rows)) {}
  template <class F>
  static std::array<Vec<C>, R> make_rows(F&& f) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) { return std::array<Vec<C>, R>{f(static_cast<int>(I))...}; }
    (std::make_index_sequence<R>{});
  }
  std::array<Vec<C>, R> rows_;
};
using Mat22 = Mat<2, 2>;
using Mat33 = Mat<3, 3>;
using Mat44 = Mat<4, 4>;

// A quaternion x y z w (w the real part). Not a vector: + and * are not defined on it;
// quat_mul multiplies, and dot, length and normalize take it as the 4-vector (x, y, z, w).
class Quat : public detail::Fields<Value, 4> {
 public:
  static constexpr int kCount = 4;
  Quat(Value x, Value y, Value z, Value w)
      : detail::Fields<Value, 4>{std::move(x), std::move(y), std::move(z), std::move(w)} {}
  explicit Quat(const Vec4& v) : Quat(v.x, v.y, v.z, v.w) {}
  const Value& operator[](ConstIndex i) const { return const_cast<Quat&>(*this)[i]; }
  Value& operator[](ConstIndex i) {
    if (i.k < 0 || i.k >= 4) detail::bad_component_index("quat", i.k, 4, i.loc);
    return detail::field(*this, i.k);
  }
  const Value& c(int k) const { return detail::field(const_cast<Quat&>(*this), k); }
  Vec4 vec() const { return Vec4(x, y, z, w); }
  const Quat& value() const { return *this; }
};

// ---- what the generic code accepts ----------------------------------------------

namespace detail {
template <class T>
struct is_shaped : std::false_type {};
template <int N>
struct is_shaped<Vec<N>> : std::true_type {};
template <int R, int C>
struct is_shaped<Mat<R, C>> : std::true_type {};

// Anything that reads as a Vec or Mat: the values, their Vars and array elements (value_type, value()).
template <class T>
concept Shaped = requires(const T& t) {
  typename T::value_type;
  requires is_shaped<typename T::value_type>::value;
  { t.value() } -> std::convertible_to<typename T::value_type>;
};
template <class T>
concept VecLike = Shaped<T> && T::value_type::kCols == 0;
template <class T>
concept MatLike = Shaped<T> && T::value_type::kCols >
0;
template <class T>
concept ScalarLike = !Shaped<std::remove_cvref_t<T>> && std::is_convertible_v<const T&, Value>;
template <class T>
using shape_t = typename std::remove_cvref_t<T>::value_type;

template <class A, class B>
concept SameShape = Shaped<A> && Shaped<B> && std::same_as<shape_t<A>, shape_t<B>>;

// The shape of a list of arguments where scalars broadcast: the one Vec/Mat type all shaped ones share.
struct mismatched_shapes {};
template <class A, class Rest, bool = Shaped<A>>
struct join_shape {
  using type = Rest;  // a scalar: the others decide
};
template <class A, class Rest>
struct join_shape<A, Rest, true> {
  using type =
      std::conditional_t<std::is_void_v<Rest> || std::is_same_v<Rest, shape_t<A>>, shape_t<A>, mismatched_shapes>;
};
template <class... A>
struct broadcast_shape {
  using type = void;
};
template <class A, class... Rest>
struct broadcast_shape<A, Rest...> {
  using type = typename join_shape<A, typename broadcast_shape<Rest...>::type>::type;
};
template <class... A>
concept Broadcast = (... && (Shaped<A> || ScalarLike<A>)) &&
                    (... || Shaped<A>)&&is_shaped<typename broadcast_shape<A...>::type>::value;

// Component k of a shaped argument, or the scalar itself.
template <class A>
Value component(const A& a, int k) {
  if constexpr (Shaped<A>)
    return a.value().c(k);
  else
    return Value(a);
}
// A shaped argument read once (an array element is loaded here, a Var read), or the scalar as a Value.
template <class A>
auto materialize(const A& a) {
  if constexpr (Shaped<A>)
    return shape_t<A>(a.value());
  else
    return Value(a);
}
// f(component k of each argument) for each k: the one loop of every componentwise operation.
// The arguments are read first, left to right (a braced list fixes the order).
template <class F, class... A>
auto each(F&& f, const A&... a) {
  using S = typename broadcast_shape<A...>::type;
  return std::apply([&](const auto&... m) { return S::from_flat([&](int k) { return Value(f(component(m, k)...)); }); },
                    std::tuple<decltype(materialize(a))...>{materialize(a)...});
}
}  // namespace detail

// ---- builders --------------------------------------------------------------------

template <class... T>
Vec2 vec2(const T&... c) {
  return Vec2(c...);
}
template <class... T>
Vec3 vec3(const T&... c) {
  return Vec3(c...);
}
template <class... T>
Vec4 vec4(const T&... c) {
  return Vec4(c...);
}
template <class... T>
Mat22 mat22(const T&... v) {
  return Mat22(v...);
}
template <class... T>
Mat33 mat33(const T&... v) {
  return Mat33(v...);
}
template <class... T>
Mat44 mat44(const T&... v) {
  return Mat44(v...);
}
inline Quat quat(Value x, Value y, Value z, Value w) {
  return Quat(std::move(x), std::move(y), std::move(z), std::move(w));
}

// ---- operators: componentwise over all entries, the same shape on both sides ----

template <class A, class B>
requires detail::SameShape<A, B> detail::shape_t<A>
operator+(const A& a, const B& b) {
  return detail::each([](const Value& x, const Value& y) { return x + y; }, a, b);
}
template <class A, class B>
requires detail::SameShape<A, B> detail::shape_t<A>
operator-(const A& a, const B& b) {
  return detail::each([](const Value& x, const Value& y) { return x - y; }, a, b);
}
template <class A, class B>
requires detail::SameShape<A, B> detail::shape_t<A>
operator*(const A& a, const B& b) {
  return detail::each([](const Value& x, const Value& y) { return x * y; }, a, b);
}
template <detail::Shaped A, detail::ScalarLike S>
detail::shape_t<A> operator*(const A& a, const S& s) {
  return detail::each([](const Value& x, const Value& y) { return x * y; }, a, s);
}
template <detail::ScalarLike S, detail::Shaped A>
detail::shape_t<A> operator*(const S& s, const A& a) {
  return detail::each([](const Value& x, const Value& y) { return x * y; }, s, a);
}
template <detail::Shaped A, detail::ScalarLike S>
detail::shape_t<A> operator/(const A& a, const S& s) {
  return detail::each([](const Value& x, const Value& y) { return x / y; }, a, s);
}
template <detail::Shaped A>
detail::shape_t<A> operator-(const A& a) {
  return detail::each([](const Value& x) { return -x; }, a);
}

// ---- products and geometry ---------------------------------------------------------

// ((a0*b0 + a1*b1) + a2*b2) + a3*b3
template <class A, class B>
requires(detail::SameShape<A, B>&& detail::VecLike<A>) Value dot(const A& a, const B& b) {
  const auto &x = a.value(), &y = b.value();
  Value s = x.c(0) * y.c(0);
  for (int k = 1; k < detail::shape_t<A>::kCount; ++k) s = s + x.c(k) * y.c(k);
  return s;
}
Value dot(const Quat& a, const Quat& b);
template <detail::VecLike A>
Value length_sq(const A& a) {
  const detail::shape_t<A> v = a.value();
  return dot(v, v);
}
template <detail::VecLike A>
Value length(const A& a) {
  const detail::shape_t<A> v = a.value();
  return sqrt(dot(v, v));
}
Value length_sq(const Quat& q);
Value length(const Quat& q);
// a / length(a), the length computed once; a zero vector gives NaN.
template <detail::VecLike A>
detail::shape_t<A> normalize(const A& a) {
  const detail::shape_t<A> v = a.value();
  Value l = length(v);
  return detail::each([&](const Value& x) { return x / l; }, v);
}
Quat normalize(const Quat& q);
// Only for 3-vectors.
Vec3 cross(const Vec3& a, const Vec3& b);

// m_ij = a_i * b_j
template <detail::VecLike A, detail::VecLike B>
Mat<detail::shape_t<A>::kCount, detail::shape_t<B>::kCount> outer(const A& a, const B& b) {
  const auto &x = a.value(), &y = b.value();
  return Mat<detail::shape_t<A>::kCount, detail::shape_t<B>::kCount>::from_entries(
      [&](int i, int j) { return x.c(i) * y.c(j); });
}
template <detail::MatLike M>
auto transpose(const M& m) {
  using S = detail::shape_t<M>;
  const S& x = m.value();
  return Mat<S::kCols, S::kRows>::from_entries([&](int i, int j) { return x.at(j, i); });
}
// m00 + m11 + ... left to right.
template <detail::MatLike M>
requires(detail::shape_t<M>::kRows == detail::shape_t<M>::kCols) Value trace(const M& m) {
  const auto& x = m.value();
  Value s = x.at(0, 0);
  for (int i = 1; i < detail::shape_t<M>::kRows; ++i) s = s + x.at(i, i);
  return s;
}
// m_ii = v_i, other entries the weak literal 0.
template <detail::VecLike V>
auto diag(const V& v) {
  constexpr int n = detail::shape_t<V>::kCount;
  const auto& x = v.value();
  return Mat<n, n>::from_entries([&](int i, int j) { return i == j ? x.c(i) : Value(0); });
}
// Weak literals 1 on the diagonal, 0 elsewhere; with a dtype each is cast to it.
template <int N>
Mat<N, N> identity() {
  return Mat<N, N>::from_entries([](int i, int j) { return Value(i == j ? 1 : 0); });
}
template <int N>
Mat<N, N> identity(DType dtype) {
  return Mat<N, N>::from_entries([&](int i, int j) { return cast(dtype, Value(i == j ? 1 : 0)); });
}

namespace detail {
// Entries of a square matrix, row-major, for the cofactor code (written once for every size).
Value determinant(const std::vector<Value>& m, int n);
std::vector<Value> inverse(const std::vector<Value>& m, int n);
template <class S>
std::vector<Value> entries(const S& m) {
  std::vector<Value> out;
  for (int k = 0; k < S::kCount; ++k) out.push_back(m.c(k));
  return out;
}
}  // namespace detail

// Cofactor expansion along row 0, left to right.
template <detail::MatLike M>
requires(detail::shape_t<M>::kRows == detail::shape_t<M>::kCols) Value determinant(const M& m) {
  return detail::determinant(detail::entries(m.value()), detail::shape_t<M>::kRows);
}
// inv_ij = C_ji / D, D = determinant(m) computed once; a singular matrix gives inf or NaN.
template <detail::MatLike M>
requires(detail::shape_t<M>::kRows == detail::shape_t<M>::kCols) detail::shape_t<M> inverse(const M& m) {
  std::vector<Value> inv = detail::inverse(detail::entries(m.value()), detail::shape_t<M>::kRows);
  return detail::shape_t<M>::from_flat([&](int k) { return inv[static_cast<std::size_t>(k)]; });
}

// r_i = dot(row_i(m), v)
template <detail::MatLike M, detail::VecLike V>
requires(detail::shape_t<M>::kCols == detail::shape_t<V>::kCount) Vec<detail::shape_t<M>::kRows> matmul(const M& m,
                                                                                                        const V& v) {
  const auto& x = m.value();
  const auto& y = v.value();
  return Vec<detail::shape_t<M>::kRows>::from_flat([&](int i) { return dot(x.row(i), y); });
}
// r_j = dot(v, col_j(m))
template <detail::VecLike V, detail::MatLike M>
requires(detail::shape_t<M>::kRows == detail::shape_t<V>::kCount) Vec<detail::shape_t<M>::kCols> matmul(const V& v,
                                                                                                        const M& m) {
  const auto& x = m.value();
  const auto& y = v.value();
  return Vec<detail::shape_t<M>::kCols>::from_flat([&](int j) { return dot(y, x.col(j)); });
}
// r_ij = dot(row_i(a), col_j(b))
template <detail::MatLike A, detail::MatLike B>
requires(detail::shape_t<A>::kCols ==
         detail::shape_t<B>::kRows) Mat<detail::shape_t<A>::kRows, detail::shape_t<B>::kCols> matmul(const A& a,
                                                                                                     const B& b) {
  const auto& x = a.value();
  const auto& y = b.value();
  return Mat<detail::shape_t<A>::kRows, detail::shape_t<B>::kCols>::from_entries(
      [&](int i, int j) { return dot(x.row(i), y.col(j)); });
}

// ---- quaternions ----------------------------------------------------------------------

Quat quat_mul(const Quat& a, const Quat& b);
Quat quat_conjugate(const Quat& q);
// v rotated by the unit quaternion q.
Vec3 quat_rotate(const Quat& q, const Vec3& v);
// The rotation by `angle` radians about the unit vector `axis`.
Quat quat_from_axis_angle(const Vec3& axis, const Value& angle);
Mat33 quat_to_matrix(const Quat& q);

// ---- componentwise math: scalars broadcast -----------------------------------------------

#define TACK_VECTOR_MATH_1(name)                                          \
  template <class A>                                                      \
  requires detail::Shaped<A> detail::shape_t<A> name(const A& a) {        \
    return detail::each([](const Value& x) { return lang::name(x); }, a); \
  }
#define TACK_VECTOR_MATH_2(name)                                                                \
  template <class A, class B>                                                                   \
  requires detail::Broadcast<A, B>                                                              \
  typename detail::broadcast_shape<A, B>::type name(const A& a, const B& b) {                   \
    return detail::each([](const Value& x, const Value& y) { return lang::name(x, y); }, a, b); \
  }
#define TACK_VECTOR_MATH_3(name)                                                                                      \
  template <class A, class B, class C>                                                                                \
  requires detail::Broadcast<A, B, C>                                                                                 \
  typename detail::broadcast_shape<A, B, C>::type name(const A& a, const B& b, const C& c) {                          \
    return detail::each([](const Value& x, const Value& y, const Value& z) { return lang::name(x, y, z); }, a, b, c); \
  }
TACK_VECTOR_MATH_1(abs)
TACK_VECTOR_MATH_1(floor)
TACK_VECTOR_MATH_1(ceil)
TACK_VECTOR_MATH_1(round)
TACK_VECTOR_MATH_1(trunc)
TACK_VECTOR_MATH_1(sqrt)
TACK_VECTOR_MATH_1(rsqrt)
TACK_VECTOR_MATH_1(exp)
TACK_VECTOR_MATH_1(exp2)
TACK_VECTOR_MATH_1(log)
TACK_VECTOR_MATH_1(log2)
TACK_VECTOR_MATH_1(log10)
TACK_VECTOR_MATH_1(sin)
TACK_VECTOR_MATH_1(cos)
TACK_VECTOR_MATH_1(tan)
TACK_VECTOR_MATH_1(asin)
TACK_VECTOR_MATH_1(acos)
TACK_VECTOR_MATH_1(atan)
TACK_VECTOR_MATH_1(sinh)
TACK_VECTOR_MATH_1(cosh)
TACK_VECTOR_MATH_1(tanh)
TACK_VECTOR_MATH_1(isnan)
TACK_VECTOR_MATH_1(isinf)
TACK_VECTOR_MATH_2(min)
TACK_VECTOR_MATH_2(max)
TACK_VECTOR_MATH_2(atan2)
TACK_VECTOR_MATH_2(pow)
TACK_VECTOR_MATH_2(copysign)
TACK_VECTOR_MATH_3(clamp)
TACK_VECTOR_MATH_3(fma)
TACK_VECTOR_MATH_3(select)
#undef TACK_VECTOR_MATH_1
#undef TACK_VECTOR_MATH_2
#undef TACK_VECTOR_MATH_3

template <Arithmetic T, detail::Shaped A>
detail::shape_t<A> cast(const A& a) {
  return detail::each([](const Value& x) { return lang::cast<T>(x); }, a);
}
template <detail::Shaped A>
detail::shape_t<A> cast(DType to, const A& a) {
  return detail::each([&](const Value& x) { return lang::cast(to, x); }, a);
}

// ---- Vars -------------------------------------------------------------------------------

// A vector kernel variable: one Var per component, assignable in if_, for_range and while_
// bodies. Copying one declares new variables, as copying a Var does.
template <int N>
class VecVar : public detail::Fields<Var, N> {
 public:
  using value_type = Vec<N>;
  VecVar(const Vec<N>& init) : VecVar(init, std::make_index_sequence<N>{}) {}
  template <detail::Shaped A>
  requires std::same_as<detail::shape_t<A>, Vec<N>> VecVar(const A& init) : VecVar(Vec<N>(init.value())) {}
  Var& operator[](ConstIndex i) {
    if (i.k < 0 || i.k >= N) detail::bad_component_index(Vec<N>::kName, i.k, N, i.loc);
    return detail::field(*this, i.k);
  }
  Vec<N> value() const {
    return Vec<N>::from_flat([&](int k) { return detail::field(const_cast<VecVar&>(*this), k).value(); });
  }
  operator Vec<N>() const { return value(); }
  // Names the components for tack::inspect (`acc.x`, `acc.y`, ...), as Var::name does.
  VecVar& name(std::string_view name) {
    for (int k = 0; k < N; ++k) detail::field(*this, k).name(std::string(name) + "." + "xyzw"[k]);
    return *this;
  }
  template <detail::Shaped A>
  requires std::same_as<detail::shape_t<A>, Vec<N>> VecVar& operator=(const A& v) { return set(v.value()); }
  VecVar& operator=(const VecVar& v) { return set(v.value()); }
  template <class A>
  VecVar& operator+=(const A& v) {
    return set(*this + v);
  }
  template <class A>
  VecVar& operator-=(const A& v) {
    return set(*this - v);
  }
  template <class A>
  VecVar& operator*=(const A& v) {
    return set(*this * v);
  }
  template <class A>
  VecVar& operator/=(const A& v) {
    return set(*this / v);
  }

 private:
  template <std::size_t... K>
  VecVar(const Vec<N>& init, std::index_sequence<K...>) : detail::Fields<Var, N>{Var(init.c(K))...} {}
  VecVar& set(const Vec<N>& v) {
    for (int k = 0; k < N; ++k) detail::field(*this, k) = v.c(k);
    return *this;
  }
};
using Vec2Var = VecVar<2>;
using Vec3Var = VecVar<3>;
using Vec4Var = VecVar<4>;

// A matrix kernel variable: R row VecVars.
template <int R, int C>
class MatVar {
 public:
  using value_type = Mat<R, C>;
  MatVar(const Mat<R, C>& init) : MatVar(init, std::make_index_sequence<R>{}) {}
  VecVar<C>& operator[](ConstIndex i) {
    if (i.k < 0 || i.k >= R) detail::bad_component_index(Mat<R, C>::kName, i.k, R, i.loc);
    return rows_[static_cast<std::size_t>(i.k)];
  }
  Var& operator()(int i, int j, std::source_location loc = std::source_location::current()) {
    return (*this)[ConstIndex(i, loc)][ConstIndex(j, loc)];
  }
  Mat<R, C> value() const {
    return Mat<R, C>::from_entries(
        [&](int i, int j) { return detail::field(const_cast<VecVar<C>&>(rows_[std::size_t(i)]), j).value(); });
  }
  operator Mat<R, C>() const { return value(); }
  // Names the entries for tack::inspect (`m[0, 1]`), as Var::name does.
  MatVar& name(std::string_view name) {
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j)
        (*this)(i, j).name(std::string(name) + "[" + std::to_string(i) + ", " + std::to_string(j) + "]");
    return *this;
  }
  template <detail::Shaped A>
  requires std::same_as<detail::shape_t<A>, Mat<R, C>> MatVar& operator=(const A& v) { return set(v.value()); }
  MatVar& operator=(const MatVar& v) { return set(v.value()); }
  template <class A>
  MatVar& operator+=(const A& v) {
    return set(*this + v);
  }
  template <class A>
  MatVar& operator-=(const A& v) {
    return set(*this - v);
  }
  template <class A>
  MatVar& operator*=(const A& v) {
    return set(*this * v);
  }
  template <class A>
  MatVar& operator/=(const A& v) {
    return set(*this / v);
  }

 private:
  template <std::size_t... I>
  MatVar(const Mat<R, C>& init, std::index_sequence<I...>) : rows_{VecVar<C>(init.row(static_cast<int>(I)))...} {}
  MatVar& set(const Mat<R, C>& m) {
    for (int i = 0; i < R; ++i) rows_[static_cast<std::size_t>(i)] = m.row(i);
    return *this;
  }
  std::array<VecVar<C>, R> rows_;
};
using Mat22Var = MatVar<2, 2>;
using Mat33Var = MatVar<3, 3>;
using Mat44Var = MatVar<4, 4>;

// A quaternion kernel variable.
class QuatVar : public detail::Fields<Var, 4> {
 public:
  QuatVar(const Quat& q) : detail::Fields<Var, 4>{Var(q.x), Var(q.y), Var(q.z), Var(q.w)} {}
  Quat value() const { return Quat(x.value(), y.value(), z.value(), w.value()); }
  operator Quat() const { return value(); }
  QuatVar& name(std::string_view name) {
    x.name(std::string(name) + ".x");
    y.name(std::string(name) + ".y");
    z.name(std::string(name) + ".z");
    w.name(std::string(name) + ".w");
    return *this;
  }
  QuatVar& operator=(const Quat& q) {
    x = q.x;
    y = q.y;
    z = q.z;
    w = q.w;
    return *this;
  }
  QuatVar& operator=(const QuatVar& q) { return *this = q.value(); }
};

// ---- arrays of vectors and matrices --------------------------------------------------------

namespace detail {
// Component `k` of the element at `lead` (1 to 3 leading indices): a(lead..., k) for a vector,
// a(lead..., k / cols, k % cols) for a matrix.
ElementRef element_component(const Array& a, const std::vector<Value>& lead, int k, int cols,
                             const std::source_location& loc);
}  // namespace detail

// One element of an array of E (a Vec or Mat): reading it loads every component in order;
// assigning stores them in order; += etc. load, combine and store component by component.
template <class E>
class ElementOf {
 public:
  using value_type = E;
  ElementOf(const Array& a, std::vector<Value> lead, std::source_location loc)
      : array_(a), lead_(std::move(lead)), loc_(loc) {}
  E value() const {
    return E::from_flat([&](int k) { return Value(ref(k)); });
  }
  operator E() const { return value(); }
  template <detail::Shaped A>
  requires std::same_as<detail::shape_t<A>, E> ElementOf& operator=(const A& v) {
    const E& x = v.value();
    for (int k = 0; k < E::kCount; ++k) ref(k) = Located(x.c(k), loc_);
    return *this;
  }
  ElementOf& operator=(const ElementOf& v) { return *this = v.value(); }
  template <class A>
  ElementOf& operator+=(const A& v) {
    return update(v, [](const Value& x, const Value& y) { return x + y; });
  }
  template <class A>
  ElementOf& operator-=(const A& v) {
    return update(v, [](const Value& x, const Value& y) { return x - y; });
  }
  template <class A>
  ElementOf& operator*=(const A& v) {
    return update(v, [](const Value& x, const Value& y) { return x * y; });
  }
  template <class A>
  requires detail::ScalarLike<A> ElementOf& operator/=(const A& v) {
    return update(v, [](const Value& x, const Value& y) { return x / y; });
  }

 private:
  ElementRef ref(int k) const { return detail::element_component(array_, lead_, k, E::kCols, loc_); }
  // Per component in order: load, combine, store.
  template <class A, class F>
  requires(detail::ScalarLike<A> || std::same_as<detail::shape_t<A>, E>) ElementOf& update(const A& v, F f) {
    const auto rhs = detail::materialize(v);
    for (int k = 0; k < E::kCount; ++k) {
      ElementRef r = ref(k);
      r = Located(f(Value(r), detail::component(rhs, k)), loc_);
    }
    return *this;
  }
  Array array_;
  std::vector<Value> lead_;
  std::source_location loc_;
};

// An array parameter whose elements are E (Vec2..4, Mat22..44): the call's array has the element's shape as
// its trailing dimensions ((n, 3), (h, w, 3), (n, 3, 3)), else the call is refused. ArrayOf<Vec3, float>
// also fixes the dtype.
template <class E, class... Fixed>
requires(detail::is_shaped<E>::value && sizeof...(Fixed) <= 1) class ArrayOf<E, Fixed...> : public Array {
 public:
  using element_type = E;
  explicit ArrayOf(int param, std::source_location loc = std::source_location::current()) : Array(param) {
    detail::require_element_shape(*this, E::kRows, E::kCols, loc);
  }
  ArrayOf(tack::detail::Untraced, int param) : Array(param) {}  // for counting parameters, outside a trace
  ElementOf<E> operator[](Located i) const { return ElementOf<E>(*this, {i.value}, i.loc); }
  ElementOf<E> operator()(Located i) const { return (*this)[std::move(i)]; }
  ElementOf<E> operator()(Located i, const Value& j) const { return ElementOf<E>(*this, {i.value, j}, i.loc); }
  ElementOf<E> operator()(Located i, const Value& j, const Value& k) const {
    return ElementOf<E>(*this, {i.value, j, k}, i.loc);
  }
};

// One scalar atomic_add per component, in component order; the old values are not returned.
// The element is x[i] (one leading index): component k is the flat element i * n + k (n components).
template <class E, class... F, detail::Shaped V>
requires std::same_as<detail::shape_t<V>, E>
void atomic_add(const ArrayOf<E, F...>& a, Located i, const V& v) {
  const E& x = v.value();
  for (int k = 0; k < E::kCount; ++k) atomic_add(a, Located(i.value * E::kCount + k, i.loc), x.c(k));
}

}  // namespace tack::lang

namespace tack::detail {
template <class E, class... Fixed>
requires lang::detail::is_shaped<E>::value struct param_traits<lang::ArrayOf<E, Fixed...>> {
  static ParamSpec spec() {
    if constexpr (sizeof...(Fixed) == 0)
      return {ArgKind::Array};
    else
      return {ArgKind::Array, true, dtype_of<Fixed...>};
  }
};
}  // namespace tack::detail
