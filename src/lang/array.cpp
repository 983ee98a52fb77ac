// Array, scalar and texture parameters, shared arrays and element access.
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/lang.hpp>

namespace tack::lang {
namespace {
ir::ArrayRef ref(ArraySpace space, int index) {
  switch (space) {
    case ArraySpace::Param: return {ir::ArrayRef::Space::Param, index};
    case ArraySpace::Shared: return {ir::ArrayRef::Space::Shared, index};
    case ArraySpace::Local: return {ir::ArrayRef::Space::Local, index};
  }
  return {ir::ArrayRef::Space::Param, index};
}
}  // namespace

ElementRef::ElementRef(const ArrayBase& a, Value index, int subscripts, std::source_location loc)
    : space_(a.space()), array_(a.index()), index_(std::move(index)), subscripts_(subscripts), loc_(loc) {}

ElementRef::operator Value() const {
  auto& ctx = detail::TraceContext::current("array element read");
  auto loc = detail::to_loc(loc_);
  ctx.require_body("reading an array element", loc);
  return ctx.bind(ir::Load::make(ir::Type::unknown(), ref(space_, array_), ir::Expr(index_.expr()), subscripts_), loc);
}

void ElementRef::store(const Value& v, const std::source_location& l) {
  auto& ctx = detail::TraceContext::current("array element store");
  auto loc = detail::to_loc(l);
  ctx.require_body("storing to an array element", loc);
  ctx.emit(ir::Store::make(ref(space_, array_), ir::Expr(index_.expr()), subscripts_, ir::Expr(v.expr()), loc));
}

ElementRef& ElementRef::operator=(Located v) {
  store(v.value, v.loc);
  return *this;
}
ElementRef& ElementRef::operator=(const ElementRef& v) {
  store(Value(v), loc_);
  return *this;
}
ElementRef& ElementRef::operator+=(Located v) {
  store(Value(*this) + v.value, v.loc);
  return *this;
}
ElementRef& ElementRef::operator-=(Located v) {
  store(Value(*this) - v.value, v.loc);
  return *this;
}
ElementRef& ElementRef::operator*=(Located v) {
  store(Value(*this) * v.value, v.loc);
  return *this;
}
ElementRef& ElementRef::operator/=(Located v) {
  store(Value(*this) / v.value, v.loc);
  return *this;
}

ElementRef ArrayBase::subscript(std::initializer_list<Value> idx, const std::source_location& loc) const {
  if (space_ != ArraySpace::Param && idx.size() > 1) {
    auto& ctx = detail::TraceContext::current("shared array access");
    ctx.fail(detail::to_loc(loc), std::string(space_ == ArraySpace::Shared ? "shared" : "local") +
                                      " arrays are one-dimensional; index them with one flat index");
  }
  // Row-major flattening: ((i * shape1 + j) * shape2 + k) ...; the rank is checked per call.
  auto it = idx.begin();
  Value flat = *it++;
  int dim = 1;
  for (; it != idx.end(); ++it, ++dim) flat = flat * extent(dim) + *it;
  return ElementRef(*this, flat, static_cast<int>(idx.size()), loc);
}

ElementRef ArrayBase::operator[](Located flat_index) const {
  return ElementRef(*this, flat_index.value, 0, flat_index.loc);
}
ElementRef ArrayBase::operator()(Located i) const { return subscript({i.value}, i.loc); }
ElementRef ArrayBase::operator()(Located i, const Value& j) const { return subscript({i.value, j}, i.loc); }
ElementRef ArrayBase::operator()(Located i, const Value& j, const Value& k) const {
  return subscript({i.value, j, k}, i.loc);
}
ElementRef ArrayBase::operator()(Located i, const Value& j, const Value& k, const Value& l) const {
  return subscript({i.value, j, k, l}, i.loc);
}

Value Array::size() const { return Value(ir::ArrayDim::make(index(), ir::ArrayDim::kSize).ptr()); }
Value Array::shape(int dim) const {
  // A negative dim stays in the traced IR: the rank, and so the dimension it names, comes with each call.
  if (dim < -4 || dim > 3) {
    auto& ctx = detail::TraceContext::current("Array::shape");
    ctx.fail({}, "shape(" + std::to_string(dim) + ") of argument " + std::to_string(index()) +
                     ": arrays have at most 4 dimensions, numbered 0 to 3, or -1 to -4 from the end");
  }
  return Value(ir::ArrayDim::make(index(), dim).ptr());
}

void detail::require_rank(const Array& a, int n, std::source_location loc) {
  auto& ctx = TraceContext::current("require_rank");
  ir::SourceLoc at = to_loc(loc);
  if (n < 1 || n > 4)
    ctx.fail(at, "argument " + std::to_string(a.index()) + " is taken to have rank " + std::to_string(n) +
                     ", but arrays have 1 to 4 dimensions");
  ir::Param& p = ctx.kernel().params[static_cast<std::size_t>(a.index())];
  if (p.required_rank >= 0 && p.required_rank != n)
    ctx.fail(at, "argument " + std::to_string(a.index()) + " is taken to have rank " + std::to_string(n) +
                     " here, but rank " + std::to_string(p.required_rank) + " at " + p.required_rank_loc.str());
  if (p.required_rank < 0) {
    p.required_rank = n;
    p.required_rank_loc = at;
  }
}

void detail::require_element_shape(const Array& a, int rows, int cols, std::source_location loc) {
  auto& ctx = TraceContext::current("require_element_shape");
  ir::SourceLoc at = to_loc(loc);
  auto shape = [](int r, int c) { return "(" + std::to_string(r) + (c > 0 ? ", " + std::to_string(c) : "") + ")"; };
  if (rows < 2 || rows > 4 || (cols != 0 && (cols < 2 || cols > 4)))
    ctx.fail(at, "argument " + std::to_string(a.index()) + " is taken to hold elements of shape " + shape(rows, cols) +
                     ", but an element is a vector of 2 to 4 components (cols 0) or a matrix of 2 to 4 rows and "
                     "columns");
  ir::Param& p = ctx.kernel().params[static_cast<std::size_t>(a.index())];
  if (p.kind != ir::ParamKind::Array)
    ctx.fail(at, "argument " + std::to_string(a.index()) + " is not an array: it has no elements");
  if (p.element_rows > 0 && (p.element_rows != rows || p.element_cols != cols))
    ctx.fail(at, "argument " + std::to_string(a.index()) + " is taken to hold elements of shape " + shape(rows, cols) +
                     " here, but of shape " + shape(p.element_rows, p.element_cols) + " at " + p.element_loc.str());
  if (p.element_rows == 0) {
    p.element_rows = rows;
    p.element_cols = cols;
    p.element_loc = at;
  }
}

Scalar::Scalar(int param) : Value(ir::ScalarParam::make(ir::Type::unknown(), param).ptr()), param_(param) {}

Value Texture3D::sample(const Value& u, const Value& v, const Value& w) const {
  return Value(ir::TexSample::make(ir::Type::strong(DType::F32), param_, ir::Expr(u.expr()), ir::Expr(v.expr()),
                                   ir::Expr(w.expr()))
                   .ptr());
}

Value SharedArray::size() const { return Value(count_); }

}  // namespace tack::lang
