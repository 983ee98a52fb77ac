// The kernel language's expressions from Python: Value with Python's operators
// (Python numbers on either side become weak literals, as C++ literals are),
// casts, select and the math functions. The operators mean what Python and NumPy
// mean: `/` is true division (f64 for integers), `//` and `%` round toward
// negative infinity (floordiv, floormod), divmod gives both. Nothing here computes on data: each
// call adds to the IR of the kernel being traced.
#include "bindings.hpp"

#include "api/frontend.hpp"

#include <nanobind/stl/string.h>

#include <string>

namespace tack::python {
namespace {

using lang::Value;
using BinaryFn = Value (*)(const Value&, const Value&);

template <BinaryFn F>
Value forward(const Value& a, nb::handle b) {
  return F(a, to_value(b));
}
template <BinaryFn F>
Value reflected(const Value& a, nb::handle b) {
  return F(to_value(b), a);
}

Value add(const Value& a, const Value& b) { return a + b; }
Value sub(const Value& a, const Value& b) { return a - b; }
Value mul(const Value& a, const Value& b) { return a * b; }
Value bit_and(const Value& a, const Value& b) { return a & b; }
Value bit_or(const Value& a, const Value& b) { return a | b; }
Value bit_xor(const Value& a, const Value& b) { return a ^ b; }
Value shl(const Value& a, const Value& b) { return a << b; }
Value shr(const Value& a, const Value& b) { return a >> b; }
Value eq(const Value& a, const Value& b) { return a == b; }
Value ne(const Value& a, const Value& b) { return a != b; }
Value lt(const Value& a, const Value& b) { return a < b; }
Value le(const Value& a, const Value& b) { return a <= b; }
Value gt(const Value& a, const Value& b) { return a > b; }
Value ge(const Value& a, const Value& b) { return a >= b; }

template <BinaryFn F>
void binary(nb::class_<Value>& cls, const char* name, const char* rname) {
  cls.def(name, &forward<F>, nb::is_operator());
  if (rname) cls.def(rname, &reflected<F>, nb::is_operator());
}

// The kernel language only means something while a kernel is traced.
void require_trace(const char* name) {
  if (!api::tracing())
    throw InvalidArgument(std::string("tack.") + name +
                          " was used outside a kernel: the kernel language only works inside a function decorated "
                          "with @tack.kernel or @tack.func, while it is traced (use NumPy or math on the host)");
}

void bind_math(nb::module_& m) {
  using V = nb::handle;
#define TACK_UNARY(name)            \
  m.def(#name, [](V x) {            \
    require_trace(#name);           \
    return lang::name(to_value(x)); \
  });
#define TACK_BINARY(name)                        \
  m.def(#name, [](V a, V b) {                    \
    require_trace(#name);                        \
    return lang::name(to_value(a), to_value(b)); \
  });
#define TACK_TERNARY(name)                                    \
  m.def(#name, [](V a, V b, V c) {                            \
    require_trace(#name);                                     \
    return lang::name(to_value(a), to_value(b), to_value(c)); \
  });
  TACK_UNARY(abs)
  TACK_UNARY(floor)
  TACK_UNARY(ceil)
  TACK_UNARY(round)
  TACK_UNARY(trunc)
  TACK_UNARY(sqrt)
  TACK_UNARY(rsqrt)
  TACK_UNARY(exp)
  TACK_UNARY(exp2)
  TACK_UNARY(log)
  TACK_UNARY(log2)
  TACK_UNARY(log10)
  TACK_UNARY(sin)
  TACK_UNARY(cos)
  TACK_UNARY(tan)
  TACK_UNARY(asin)
  TACK_UNARY(acos)
  TACK_UNARY(atan)
  TACK_UNARY(sinh)
  TACK_UNARY(cosh)
  TACK_UNARY(tanh)
  TACK_UNARY(isnan)
  TACK_UNARY(isinf)
  TACK_BINARY(min)
  TACK_BINARY(max)
  TACK_BINARY(atan2)
  TACK_BINARY(pow)
  TACK_BINARY(copysign)
  TACK_BINARY(floordiv)
  TACK_BINARY(floormod)
  TACK_BINARY(true_div)
  TACK_TERNARY(clamp)
  TACK_TERNARY(fma)
  TACK_TERNARY(select)
#undef TACK_UNARY
#undef TACK_BINARY
#undef TACK_TERNARY
  m.def("cast", [](DType t, V v) {
    require_trace("cast");
    if (t == DType::Bool) throw TypeError("cast to bool: compare with != 0 instead");
    return lang::cast(t, to_value(v));
  });
  m.def("literal", [](V v) {
    require_trace("literal");
    return to_value(v);
  });
  // Python's truthiness of a traced value (`if v:`, `not v`, `a and b`): a
  // comparison, logical or classification result is its own truth, and so is a
  // value already typed bool; any other v means v != 0 (for a bool, too, since
  // the comparison converts it), as Python's bool() of a number does.
  m.def("truthy", [](V x) {
    require_trace("truthy");
    return api::truth_value(to_value(x));
  });
  m.def("logical_and", [](V a, V b) { return to_value(a) && to_value(b); });
  m.def("logical_or", [](V a, V b) { return to_value(a) || to_value(b); });
  m.def("logical_not", [](V a) { return !to_value(a); });
}

}  // namespace

void bind_values(nb::module_& m) {
  nb::class_<Value> value(m, "Value");
  binary<add>(value, "__add__", "__radd__");
  binary<sub>(value, "__sub__", "__rsub__");
  binary<mul>(value, "__mul__", "__rmul__");
  binary<lang::true_div>(value, "__truediv__", "__rtruediv__");
  binary<lang::floordiv>(value, "__floordiv__", "__rfloordiv__");
  binary<lang::floormod>(value, "__mod__", "__rmod__");
  binary<bit_and>(value, "__and__", "__rand__");
  binary<bit_or>(value, "__or__", "__ror__");
  binary<bit_xor>(value, "__xor__", "__rxor__");
  binary<shl>(value, "__lshift__", "__rlshift__");
  binary<shr>(value, "__rshift__", "__rrshift__");
  binary<eq>(value, "__eq__", nullptr);
  binary<ne>(value, "__ne__", nullptr);
  binary<lt>(value, "__lt__", nullptr);
  binary<le>(value, "__le__", nullptr);
  binary<gt>(value, "__gt__", nullptr);
  binary<ge>(value, "__ge__", nullptr);
  value
      .def(
          "__divmod__",
          [](const Value& a, nb::handle b) {
            Value d = to_value(b);
            return nb::make_tuple(lang::floordiv(a, d), lang::floormod(a, d));
          },
          nb::is_operator())
      .def(
          "__rdivmod__",
          [](const Value& a, nb::handle b) {
            Value n = to_value(b);
            return nb::make_tuple(lang::floordiv(n, a), lang::floormod(n, a));
          },
          nb::is_operator())
      .def(
          "__pow__", [](const Value& a, nb::handle b) { return lang::pow(a, to_value(b)); }, nb::is_operator())
      .def(
          "__rpow__", [](const Value& a, nb::handle b) { return lang::pow(to_value(b), a); }, nb::is_operator())
      .def("__neg__", [](const Value& a) { return -a; })
      .def("__pos__", [](const Value& a) { return +a; })
      .def("__invert__", [](const Value& a) { return ~a; })
      .def("__abs__", [](const Value& a) { return lang::abs(a); })
      .def("__bool__",
           [](const Value&) -> bool {
             throw TypeError(
                 "a traced value has no truth value at trace time: use it as the condition of a kernel's if or "
                 "while, or in tack.select(); `and`, `or` and `not` on traced values are traced as logical "
                 "operations");
           })
      .def("cast", [](const Value& v, DType t) { return lang::cast(t, v); })
      .def("__repr__", [](const Value&) { return std::string("<tack traced value>"); });
  value.attr("__hash__") = nb::none();
  bind_math(m);
}

}  // namespace tack::python
