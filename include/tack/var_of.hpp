// VarOf<T>: a kernel variable holding a whole struct of Values, vectors,
// matrices and quaternions (and of such structs), assignable inside traced control flow as a Var is. It is one Var per
// leaf Value, found by reflection (<tack/reflect.hpp>), so it lowers to the
// scalar Vars every backend already has.
#pragma once

#include <tack/lang.hpp>
#include <tack/reflect.hpp>

#include <concepts>
#include <cstddef>
#include <deque>
#include <source_location>
#include <type_traits>

namespace tack::lang {

namespace detail {
// What a struct field is to VarOf: a leaf (one Var), a vector, matrix or
// quaternion (<tack/vector.hpp>: one Var per component, in their flat order), or
// a struct to look into.
template <class F>
inline constexpr bool is_var_leaf = std::is_base_of_v<Value, F>;
template <class F>
concept SmallValue = requires(const F& f) {
  F::kCount;
  { f.c(0) } -> std::same_as<const Value&>;
};

// Calls f(leaf) for each leaf Value of t, depth first, in field order.
template <class T, class F>
void for_each_leaf(T& t, F&& f) {
  using U = std::remove_cv_t<T>;
  if constexpr (is_var_leaf<U>) {
    f(static_cast<std::conditional_t<std::is_const_v<T>, const Value&, Value&>>(t));
  } else if constexpr (SmallValue<U>) {
    // c(k) is the component itself; writable where t is (VarOf::get() fills a copy it owns).
    for (int k = 0; k < U::kCount; ++k) {
      if constexpr (std::is_const_v<T>)
        f(t.c(k));
      else
        f(const_cast<Value&>(t.c(k)));
    }
  } else {
    static_assert(reflect::Aggregate<U>,
                  "VarOf<T>: T must be a struct whose fields are Values, vectors, matrices, quaternions or such "
                  "structs");
    reflect::for_each_field(t, [&](auto& field) { for_each_leaf(field, f); });
  }
}
}  // namespace detail

template <class T>
class VarOf {
 public:
  VarOf(const T& init, std::source_location loc = std::source_location::current()) : shape_(init) {
    detail::for_each_leaf(init, [&](const Value& v) { vars_.emplace_back(v, loc); });
  }
  VarOf(const VarOf&) = delete;
  VarOf& operator=(const VarOf& other) { return *this = other.get(); }

  // Assigns every field (one Var assignment per leaf, in field order).
  VarOf& operator=(const T& v) {
    std::size_t k = 0;
    detail::for_each_leaf(v, [&](const Value& x) { vars_[k++] = x; });
    return *this;
  }
  // The struct's current value: each leaf read now, as a Var's conversion to Value.
  T get() const {
    T out = shape_;
    std::size_t k = 0;
    detail::for_each_leaf(out, [&](Value& x) { x = vars_[k++].value(); });
    return out;
  }
  operator T() const { return get(); }

 private:
  T shape_;               // the initial value: what get() copies before reading the leaves into it
  std::deque<Var> vars_;  // a deque: a Var never moves (copying one would declare another)
};

}  // namespace tack::lang
