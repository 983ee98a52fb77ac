// Reflection of plain C++ aggregates without macros (the technique of Boost.PFR,
// written for Tack): a struct's field count by brace-init probing, its fields as
// references through structured bindings, and building one field by field.
// Kernel parameters that bundle arrays and scalars (tack::kernel) and aggregate
// kernel variables (lang::VarOf) are made with it.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tack::reflect {

// The most fields an aggregate may have here.
inline constexpr std::size_t kMaxFields = 16;

namespace detail {
// Converts to a reference to anything: only ever used in unevaluated brace-init probes.
struct AnyField {
  template <class T>
  constexpr operator T&() const&& noexcept;
};
template <class T, std::size_t... I>
constexpr bool brace_constructible(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyField{})...}; };
}
template <class T, std::size_t N>
constexpr std::size_t count_fields() {
  if constexpr (N == 0)
    return 0;
  else if constexpr (brace_constructible<T>(std::make_index_sequence<N>{}))
    return N;
  else
    return count_fields<T, N - 1>();
}
}  // namespace detail

// An aggregate (struct with public fields, no constructors, no bases) Tack can reflect.
template <class T>
concept Aggregate = std::is_aggregate_v<std::remove_cv_t<T>> && !std::is_array_v<std::remove_cv_t<T>>;

// The number of fields: the most initializers T{...} accepts (at most kMaxFields).
template <Aggregate T>
inline constexpr std::size_t field_count = detail::count_fields<std::remove_cv_t<T>, kMaxFields>();

// References to t's fields, in declaration order, as a std::tuple.
template <Aggregate T>
constexpr auto tie_fields(T& t) {
  constexpr std::size_t n = field_count<T>;
  static_assert(n >= 1 && n <= kMaxFields, "tack::reflect: an aggregate of 1 to 16 fields");
  // clang-format off
  if constexpr (n == 1) { auto& [a] = t; return std::tie(a); }
  else if constexpr (n == 2) { auto& [a, b] = t; return std::tie(a, b); }
  else if constexpr (n == 3) { auto& [a, b, c] = t; return std::tie(a, b, c); }
  else if constexpr (n == 4) { auto& [a, b, c, d] = t; return std::tie(a, b, c, d); }
  else if constexpr (n == 5) { auto& [a, b, c, d, e] = t; return std::tie(a, b, c, d, e); }
  else if constexpr (n == 6) { auto& [a, b, c, d, e, f] = t; return std::tie(a, b, c, d, e, f); }
  else if constexpr (n == 7) { auto& [a, b, c, d, e, f, g] = t; return std::tie(a, b, c, d, e, f, g); }
  else if constexpr (n == 8) { auto& [a, b, c, d, e, f, g, h] = t; return std::tie(a, b, c, d, e, f, g, h); }
  else if constexpr (n == 9) { auto& [a, b, c, d, e, f, g, h, i] = t; return std::tie(a, b, c, d, e, f, g, h, i); }
  else if constexpr (n == 10) { auto& [a, b, c, d, e, f, g, h, i, j] = t; return std::tie(a, b, c, d, e, f, g, h, i, j); }
  else if constexpr (n == 11) { auto& [a, b, c, d, e, f, g, h, i, j, k] = t; return std::tie(a, b, c, d, e, f, g, h, i, j, k); }
  else if constexpr (n == 12) { auto& [a, b, c, d, e, f, g, h, i, j, k, l] = t; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l); }
  else if constexpr (n == 13) { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m] = t; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m); }
  else if constexpr (n == 14) { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o] = t; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o); }
  else if constexpr (n == 15) { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o, p] = t; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p); }
  else { auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q] = t; return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q); }
  // clang-format on
}

// Calls f(field) for each field of t, in order.
template <Aggregate T, class F>
constexpr void for_each_field(T& t, F&& f) {
  std::apply([&](auto&... field) { (f(field), ...); }, tie_fields(t));
}

namespace detail {
template <class Make>
struct FieldMaker {
  Make* make;
  template <class F>
  operator F() const {
    return (*make).template operator()<F>();
  }
};
template <class T, class Make, std::size_t... I>
T build(Make& make, std::index_sequence<I...>) {
  return T{(void(I), FieldMaker<Make>{&make})...};  // a braced list: the fields are made in order
}
}  // namespace detail

// T built field by field, in order: field k is make.template operator()<FieldType>().
template <Aggregate T, class Make>
T build(Make& make) {
  return detail::build<T>(make, std::make_index_sequence<field_count<T>>{});
}

}  // namespace tack::reflect
