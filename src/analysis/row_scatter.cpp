// plan_row_scatter: one walk over the kernel's accesses, then each float array's rows checked (row_scatter.hpp).
#include "analysis/row_scatter.hpp"

#include "analysis/subscripts.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace tack::analysis {
namespace {
using namespace ir;

class Planner {
 public:
  explicit Planner(const Kernel& k) : k_(k), reader_(k) {}

  RowScatter run() {
    RowScatter out;
    out.plain.assign(k_.params.size(), false);
    if (k_.launch != LaunchKind::Parallel || k_.dims.empty()) return out;
    for_each_stmt(k_.body, [&](const Stmt& s) { collect(s); });
    for (auto& [p, rows] : rows_) {
      if (!rows.only_adds || rows.offsets.empty()) continue;
      const auto [lo, hi] = std::minmax_element(rows.offsets.begin(), rows.offsets.end());
      out.plain[static_cast<size_t>(p)] = true;
      out.span = std::max(out.span, *hi - *lo);
    }
    return out;
  }

 private:
  // What the kernel does to one array parameter: the launch-row offsets of its atomic adds, while nothing else
  // touches it.
  struct Rows {
    bool only_adds = true;
    std::vector<std::int64_t> offsets;
  };

  void collect(const Stmt& s) {
    for_each_own_access(s, [&](const ArrayRef& a, const Expr&) { other(a); });
    auto at = s.as<Atomic>();
    if (!at || at->array.space != ArrayRef::Space::Param) return;
    const int p = at->array.index;
    std::optional<std::int64_t> row;
    if ((at->op == AtomicOp::Add || at->op == AtomicOp::Sub) && is_float(k_.params[static_cast<size_t>(p)].dtype))
      row = row_offset(at->index, at->subscripts, p);
    if (row)
      rows_[p].offsets.push_back(*row);
    else
      rows_[p].only_adds = false;
  }

  void other(const ArrayRef& a) {
    if (a.space == ArrayRef::Space::Param) rows_[a.index].only_adds = false;
  }

  // c where the access's outermost subscript is the launch's outermost index plus the constant c and its inner
  // subscripts stay within their extents (so the element is in that row).
  std::optional<std::int64_t> row_offset(const Expr& flat, int subscripts, int p) const {
    const std::vector<Expr> subs = reader_.subscripts(flat, subscripts, p);
    if (subs.empty()) return std::nullopt;
    for (size_t d = 1; d < subs.size(); ++d)
      if (!reader_.within_extent(subs[d], p, static_cast<int>(d))) return std::nullopt;
    auto row = reader_.shifted_index(subs[0]);
    if (!row || row->first != 0) return std::nullopt;
    return row->second;
  }

  const Kernel& k_;
  IndexReader reader_;
  std::unordered_map<int, Rows> rows_;
};

}  // namespace

RowScatter plan_row_scatter(const Kernel& typed) { return Planner(typed).run(); }

}  // namespace tack::analysis
