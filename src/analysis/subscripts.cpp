// IndexReader (subscripts.hpp): pattern matching on the index expressions lang writes.
#include "analysis/subscripts.hpp"

#include "ir/printer.hpp"
#include "ir/visitor.hpp"

namespace tack::analysis {
using namespace ir;

IndexReader::IndexReader(const Kernel& k) : k_(k) {
  for_each_stmt(k.body, [&](const Stmt& s) {
    if (auto l = s.as<Let>()) lets_.emplace(l->id, l->value);
  });
}

Expr IndexReader::resolve(Expr e) const {
  for (;;) {
    if (auto c = e.as<Cast>(); c && c->type.dtype == DType::I64 && is_integer(c->value->type.dtype)) {
      e = c->value;
      continue;
    }
    auto r = e.as<LetRef>();
    auto it = r ? lets_.find(r->id) : lets_.end();
    if (it == lets_.end()) return e;
    e = it->second;
  }
}

std::optional<std::int64_t> IndexReader::constant(const Expr& e) const {
  auto c = resolve(e).as<Const>();
  if (!c || !is_integer(c->type.dtype)) return std::nullopt;
  return c->i;
}

std::optional<std::pair<int, std::int64_t>> IndexReader::shifted_index(const Expr& e) const {
  if (!e) return std::nullopt;
  Expr x = resolve(e);
  if (auto i = x.as<LoopIndex>()) return std::make_pair(i->dim, std::int64_t{0});
  auto n = x.as<Op>();
  if (!n || (n->op != OpCode::Add && n->op != OpCode::Sub)) return std::nullopt;
  std::optional<std::int64_t> c = constant(n->args[1]);
  if (auto r = c ? shifted_index(n->args[0]) : std::nullopt)
    return std::make_pair(r->first, n->op == OpCode::Add ? r->second + *c : r->second - *c);
  if (n->op == OpCode::Add && (c = constant(n->args[0])))
    if (auto r = shifted_index(n->args[1])) return std::make_pair(r->first, r->second + *c);
  return std::nullopt;
}

std::optional<IndexReader::Wrap> IndexReader::wrapped_index(const Expr& e) const {
  auto sel = resolve(e).as<Select>();
  auto eq = sel ? resolve(sel->cond).as<Op>() : nullptr;
  auto index = eq && eq->op == OpCode::Eq ? resolve(eq->args[0]).as<LoopIndex>() : nullptr;
  const auto shift = index ? shifted_index(sel->if_false) : std::nullopt;
  if (!shift || shift->first != index->dim) return std::nullopt;
  return Wrap{index->dim, shift->second, eq->args[1], sel->if_true};
}

bool IndexReader::is_extent(const Expr& e, int p, int dim) const {
  auto d = resolve(e).as<ArrayDim>();
  return d && d->dim == dim && (d->param == p || d->param == k_.params[static_cast<size_t>(p)].gradient_of);
}

std::vector<Expr> IndexReader::subscripts(const Expr& flat, int subscripts, int p) const {
  const int rank = k_.params[static_cast<size_t>(p)].rank;
  const int n = subscripts == 0 ? rank : subscripts;  // a flat index (atomics) read as lang would have written it
  if (n <= 1) return rank == 1 ? std::vector<Expr>{flat} : std::vector<Expr>{};
  std::vector<Expr> out(static_cast<size_t>(n));
  Expr x = flat;
  for (int d = n - 1; d > 0; --d) {
    auto top = resolve(x).as<Op>();
    // r * extent + s, or r * extent where the optimizer folded s == 0 away.
    auto mul = top && top->op == OpCode::Add ? resolve(top->args[0]).as<Op>() : top;
    if (!mul || mul->op != OpCode::Mul || !is_extent(mul->args[1], p, d)) return {};
    out[static_cast<size_t>(d)] = mul == top ? Const::make_int(Type::strong(DType::I64), 0) : top->args[1];
    x = mul->args[0];
  }
  out[0] = x;
  return out;
}

std::optional<IndexReader::RowPlace> IndexReader::row_place(const Expr& flat, int subscripts, int p) const {
  const std::vector<Expr> subs = this->subscripts(flat, subscripts, p);
  const auto inner = subs.empty() ? std::nullopt : shifted_index(subs.back());
  if (!inner) return std::nullopt;
  RowPlace place{{}, inner->first, inner->second};
  for (size_t d = 0; d + 1 < subs.size(); ++d) place.row += to_string(resolve(subs[d])) + ";";
  return place;
}

bool IndexReader::within_extent(const Expr& s, int p, int dim) const {
  if (constant(s) == 0) return true;  // an array with an element has an extent of at least 1 in each dimension
  const auto launch_range = [&](int d) -> std::optional<std::int64_t> {  // c where the range is the extent less c
    if (k_.launch != LaunchKind::Parallel || d < 0 || d >= static_cast<int>(k_.dims.size())) return std::nullopt;
    Expr range = resolve(k_.dims[static_cast<size_t>(d)]);
    if (is_extent(range, p, dim)) return 0;
    auto n = range.as<Op>();
    std::optional<std::int64_t> c = n && n->op == OpCode::Sub ? constant(n->args[1]) : std::nullopt;
    return c && *c >= 0 && is_extent(n->args[0], p, dim) ? c : std::nullopt;
  };
  if (auto shifted = shifted_index(s)) {
    std::optional<std::int64_t> less = launch_range(shifted->first);
    return less && shifted->second >= 0 && shifted->second <= *less;
  }
  // select(i == 0, n - 1, i - 1) and select(i == n - 1, 0, i + 1) over a launch range of n, the extent: both stay in
  // [0, n).
  const std::optional<Wrap> wrap = wrapped_index(s);
  if (!wrap || launch_range(wrap->dim) != 0) return false;
  const auto last = [&](const Expr& e) {  // the extent less 1
    auto n = resolve(e).as<Op>();
    return n && n->op == OpCode::Sub && constant(n->args[1]) == 1 && is_extent(n->args[0], p, dim);
  };
  if (wrap->shift == 1) return last(wrap->compared) && constant(wrap->wrapped) == 0;
  return wrap->shift == -1 && constant(wrap->compared) == 0 && last(wrap->wrapped);
}

}  // namespace tack::analysis
