// order_scatters (order_scatters.hpp): a stable sort of each run of unread atomic adds by array, then by offset.
#include "autodiff/order_scatters.hpp"

#include "analysis/subscripts.hpp"
#include "ir/mutator.hpp"
#include "ir/walk.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

namespace tack::autodiff {
namespace {
using namespace ir;

class Ordering final : public IRMutator {
 public:
  Ordering(const Kernel& k, std::unordered_set<int> read_lets) : reader_(k), read_(std::move(read_lets)) {}

 protected:
  Stmt visit(const Block* n, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& s : n->stmts) {
      Stmt m = mutate(s);
      changed |= !m.same_as(s);
      out.push_back(std::move(m));
    }
    for (size_t i = 0; i < out.size();) {
      size_t end = i;
      while (end < out.size() && unordered_add(out[end])) ++end;
      if (end - i > 1) {
        std::vector<Stmt> run(out.begin() + static_cast<long>(i), out.begin() + static_cast<long>(end));
        std::stable_sort(run.begin(), run.end(), [&](const Stmt& a, const Stmt& b) {
          const Atomic* x = a.as<Atomic>();
          const Atomic* y = b.as<Atomic>();
          if (x->array.index != y->array.index) return x->array.index < y->array.index;
          const Place px = place(x), py = place(y);
          if (px.row != py.row) return px.row < py.row;
          return px.offset > py.offset;
        });
        for (size_t j = 0; j < run.size(); ++j) {
          changed |= !run[j].same_as(out[i + j]);
          out[i + j] = run[j];
        }
      }
      i = std::max(end, i + 1);
    }
    return changed ? Block::make(std::move(out), self->loc) : self;
  }

 private:
  bool unordered_add(const Stmt& s) const {
    auto a = s.as<Atomic>();
    return a && a->array.space == ArrayRef::Space::Param && (a->op == AtomicOp::Add || a->op == AtomicOp::Sub) &&
           !read_.count(a->result);
  }

  // The access's row (its outer subscripts' text, with its innermost subscript's launch index) and the constant
  // by which the innermost subscript shifts that index; an empty row and the lowest offset where it has no such
  // form.
  struct Place {
    std::string row;
    std::int64_t offset;
  };
  Place place(const Atomic* a) const {
    const auto p = reader_.row_place(a->index, a->subscripts, a->array.index);
    if (!p) return {{}, std::numeric_limits<std::int64_t>::min()};
    return {p->row + std::to_string(p->dim), p->offset};
  }

  analysis::IndexReader reader_;
  std::unordered_set<int> read_;
};

}  // namespace

Kernel order_scatters(const Kernel& k) {
  Kernel out = k;
  Ordering ordering(k, lets_read(k.body));
  out.body = ordering.mutate(k.body);
  return out;
}

}  // namespace tack::autodiff
