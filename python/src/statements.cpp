// The kernel language's statements from Python: parameters, Vars, element
// loads and stores, control flow, the parallel loop, workgroups, atomics and print.
// The Python front end (tack/_frontend) calls these while it replays a
// kernel's AST; each takes the Python file and line set by set_location.
#include "bindings.hpp"

#include "api/frontend.hpp"

#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

namespace tack::python {
namespace {

using lang::Value;

// An ArrayParam's shape, indexable from Python: shape[d], d < 0 counting from the
// end. Its length is the rank, known only per call, so `h, w = a.shape` is unpack(2),
// which requires that rank.
struct ShapeView {
  lang::Array array;
  Value operator[](int dim) const { return array.shape(dim); }
  nb::tuple unpack(int n) const {
    lang::detail::require_rank(array, n);
    nb::list out;
    for (int d = 0; d < n; ++d) out.append(array.shape(d));
    return nb::tuple(out);
  }
};

std::vector<Value> values(const nb::sequence& seq) {
  std::vector<Value> out;
  for (nb::handle h : seq) out.push_back(to_value(h));
  return out;
}

lang::ElementRef element(const lang::ArrayBase& a, const nb::sequence& index) {
  std::vector<Value> i = values(index);
  switch (i.size()) {
    case 1: return a[i[0]];
    case 2: return a(i[0], i[1]);
    case 3: return a(i[0], i[1], i[2]);
    case 4: return a(i[0], i[1], i[2], i[3]);
    default: throw InvalidArgument("an array is indexed with 1 to 4 subscripts, got " + std::to_string(i.size()));
  }
}

Value load(const lang::ArrayBase& a, const nb::sequence& index) { return element(a, index); }
void store(const lang::ArrayBase& a, const nb::sequence& index, nb::handle v) { element(a, index) = to_value(v); }

std::vector<Value> begin_parallel(const nb::sequence& dims) {
  std::vector<Value> d = values(dims);
  switch (d.size()) {
    case 1: return lang::detail::begin_parallel({d[0]}, 1, std::source_location::current());
    case 2: return lang::detail::begin_parallel({d[0], d[1]}, 2, std::source_location::current());
    case 3: return lang::detail::begin_parallel({d[0], d[1], d[2]}, 3, std::source_location::current());
    case 4: return lang::detail::begin_parallel({d[0], d[1], d[2], d[3]}, 4, std::source_location::current());
    default: throw InvalidArgument("tack.parallel takes 1 to 4 extents, got " + std::to_string(d.size()));
  }
}

Value atomic(const std::string& op, const lang::ArrayBase& a, nb::handle index, nb::handle v, nb::handle expected) {
  Value i = to_value(index), x = to_value(v);
  if (op == "cas") {
    if (expected.is_none()) throw InvalidArgument("atomic_cas needs the expected value");
    return lang::atomic_cas(a, i, to_value(expected), x);
  }
  if (op == "add") return lang::atomic_add(a, i, x);
  if (op == "sub") return lang::atomic_sub(a, i, x);
  if (op == "min") return lang::atomic_min(a, i, x);
  if (op == "max") return lang::atomic_max(a, i, x);
  if (op == "and") return lang::atomic_and(a, i, x);
  if (op == "or") return lang::atomic_or(a, i, x);
  if (op == "xor") return lang::atomic_xor(a, i, x);
  if (op == "exchange") return lang::atomic_exchange(a, i, x);
  throw InvalidArgument("no atomic operation '" + op + "' (add, sub, min, max, and, or, xor, exchange, cas)");
}

}  // namespace

void bind_statements(nb::module_& m) {
  m.def(
      "set_location", [](const std::optional<std::string>& file, int line) { api::set_location(file, line); },
      nb::arg("file").none(), nb::arg("line"));

  nb::class_<lang::Scalar, Value>(m, "ScalarParam").def_prop_ro("param", &lang::Scalar::param);

  nb::class_<ShapeView>(m, "Shape")
      .def("__getitem__", &ShapeView::operator[])
      .def("unpack", &ShapeView::unpack, nb::arg("n"))
      .def("__len__", [](const ShapeView&) -> int {
        throw TypeError("an array parameter's rank is not known while the kernel is traced; index shape[d] instead");
      });

  nb::class_<lang::ArrayBase>(m, "ArrayBase")
      .def("load", &load, nb::arg("index"))
      .def("store", &store, nb::arg("index"), nb::arg("value"));
  nb::class_<lang::Array, lang::ArrayBase>(m, "ArrayParam")
      .def_prop_ro("size", &lang::Array::size)
      .def_prop_ro("shape", [](const lang::Array& a) { return ShapeView{a}; })
      .def(
          "require_rank", [](const lang::Array& a, int n) { lang::detail::require_rank(a, n); }, nb::arg("n"))
      .def_prop_ro("param", &lang::Array::index);
  // Arrays of vectors and matrices (tack.Array[tack.vec3]): the trailing shape each call's array must have.
  m.def(
      "require_element_shape",
      [](const lang::Array& a, int rows, int cols) { lang::detail::require_element_shape(a, rows, cols); },
      nb::arg("array"), nb::arg("rows"), nb::arg("cols"));
  nb::class_<lang::SharedArray, lang::ArrayBase>(m, "SharedArray").def_prop_ro("size", &lang::SharedArray::size);
  // Per-work-item arrays (tack.local_array); the count is checked in Python to be a plain int.
  nb::class_<lang::LocalArray, lang::ArrayBase>(m, "LocalArray")
      .def_prop_ro("size", &lang::LocalArray::size)
      .def_prop_ro("count", &lang::LocalArray::count);
  m.def(
      "local_array", [](DType t, std::int64_t count) { return lang::local_array(t, count); }, nb::arg("dtype"),
      nb::arg("count"));
  nb::class_<lang::Texture3D>(m, "TextureParam")
      .def("sample", [](const lang::Texture3D& t, nb::handle u, nb::handle v,
                        nb::handle w) { return t.sample(to_value(u), to_value(v), to_value(w)); })
      .def_prop_ro("param", &lang::Texture3D::param);

  nb::class_<lang::Var>(m, "Var")
      .def(
          "__init__",
          [](lang::Var* self, nb::handle init, std::optional<std::string> name) {
            new (self) lang::Var(to_value(init));
            if (name) self->name(*name);
          },
          nb::arg("init"), nb::arg("name") = nb::none())
      .def_prop_ro("value", [](const lang::Var& v) { return v.value(); })
      .def("assign", [](lang::Var& v, nb::handle x) { v = to_value(x); });

  m.def(
      "if_",
      [](nb::handle cond, std::function<void()> then_body, std::optional<std::function<void()>> else_body) {
        if (else_body)
          lang::if_(to_value(cond), then_body, *else_body);
        else
          lang::if_(to_value(cond), then_body);
      },
      nb::arg("cond"), nb::arg("then_body"), nb::arg("else_body").none());
  m.def("for_range", [](nb::handle lo, nb::handle hi, std::function<void(Value)> body) {
    lang::for_range(to_value(lo), to_value(hi), body);
  });
  m.def("while_",
        [](nb::object cond, std::function<void()> body) { lang::while_([&cond] { return to_value(cond()); }, body); });
  m.def("break_", [] { lang::break_(); });
  m.def("continue_", [] { lang::continue_(); });
  m.def("begin_parallel", &begin_parallel);
  m.def("end_parallel", [] { lang::detail::end_parallel(); });

  nb::class_<lang::Group>(m, "Group")
      .def_prop_ro("local_id", &lang::Group::local_id)
      .def_prop_ro("group_id", &lang::Group::group_id)
      .def_prop_ro("size", &lang::Group::size)
      .def_prop_ro("num_groups", &lang::Group::num_groups)
      .def_prop_ro("global_id", &lang::Group::global_id)
      .def("shared", [](const lang::Group& g, DType t, std::int64_t count) { return g.shared(t, count); })
      .def("barrier", [](const lang::Group& g) { g.barrier(); })
      .def("reduce_add", [](const lang::Group& g, nb::handle v) { return g.reduce_add(to_value(v)); })
      .def("reduce_min", [](const lang::Group& g, nb::handle v) { return g.reduce_min(to_value(v)); })
      .def("reduce_max", [](const lang::Group& g, nb::handle v) { return g.reduce_max(to_value(v)); });
  m.def("workgroup_for", [](nb::handle num_groups, std::function<void(lang::Group)> body) {
    lang::workgroup_for(to_value(num_groups), body);
  });

  m.def(
      "print_",
      [](const std::string& format, const nb::sequence& args, nb::handle cond) {
        lang::PrintFormat f(format);
        if (cond.is_none()) return lang::detail::print(f, nullptr, values(args));
        Value c = to_value(cond);
        lang::detail::print(f, &c, values(args));
      },
      nb::arg("format"), nb::arg("args"), nb::arg("cond").none() = nb::none());

  m.def("atomic", &atomic, nb::arg("op"), nb::arg("array"), nb::arg("index"), nb::arg("value"),
        nb::arg("expected").none() = nb::none());
}

}  // namespace tack::python
