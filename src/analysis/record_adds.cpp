// record_adds: adds of a whole record into a record, found in a run of private adds (record_adds.hpp).
#include "analysis/record_adds.hpp"

#include "analysis/record_index.hpp"

#include <optional>
#include <unordered_map>

namespace tack::analysis {
namespace {
using namespace ir;

class Run {
 public:
  Run(const std::vector<Stmt>& stmts, std::size_t first, std::size_t count) {
    for (std::size_t k = first; k < first + count; ++k)
      if (const auto* let = stmts[k].as<Let>()) lets_[let->id] = &let->value;
  }

  // e with the run's Lets looked through: nothing the run does changes what they hold (it has no Assign, and
  // its adds go into arrays nothing reads).
  const Expr& resolve(const Expr& e) const {
    const Expr* at = &e;
    while (const auto* r = at->as<LetRef>()) {
      auto found = lets_.find(r->id);
      if (found == lets_.end()) break;
      at = found->second;
    }
    return *at;
  }

  // Whether a and b are the same value in every lane.
  bool same(const Expr& x, const Expr& y) const {
    const Expr& a = resolve(x);
    const Expr& b = resolve(y);
    if (a.same_as(b)) return true;
    if (!a || !b || a->kind != b->kind || !(a->type == b->type)) return false;
    switch (a->kind) {
      case ExprKind::Const: return a.as<Const>()->i == b.as<Const>()->i && a.as<Const>()->f == b.as<Const>()->f;
      case ExprKind::ScalarParam: return a.as<ScalarParam>()->param == b.as<ScalarParam>()->param;
      case ExprKind::LoopIndex: return a.as<LoopIndex>()->dim == b.as<LoopIndex>()->dim;
      case ExprKind::LetRef: return a.as<LetRef>()->id == b.as<LetRef>()->id;
      case ExprKind::VarRef: return a.as<VarRef>()->id == b.as<VarRef>()->id;
      case ExprKind::Cast: return same(a.as<Cast>()->value, b.as<Cast>()->value);
      case ExprKind::Op: {
        const auto* p = a.as<Op>();
        const auto* q = b.as<Op>();
        if (p->op != q->op) return false;
        for (int i = 0; i < p->arity(); ++i)
          if (!same(p->args[static_cast<std::size_t>(i)], q->args[static_cast<std::size_t>(i)])) return false;
        return true;
      }
      default: return false;
    }
  }

  // index as `size * x + field`, field from 0 to size - 1.
  std::optional<RecordIndex> field_of(const Expr& index) const {
    std::optional<RecordIndex> at = record_index(index, [this](const Expr& e) -> const Expr& { return resolve(e); });
    if (!at || at->offset < 0 || at->offset >= at->size) return std::nullopt;
    return at;
  }

 private:
  std::unordered_map<int, const Expr*> lets_;
};

}  // namespace

std::vector<RecordAdd> record_adds(const std::vector<Stmt>& stmts, std::size_t first, std::size_t count,
                                   const std::function<bool(const Atomic*)>& counts) {
  const Run run(stmts, first, count);
  struct Group {
    const Atomic* any;
    RecordIndex at;
    std::vector<std::size_t> fields;  // by field, the position; or none
    std::vector<const Load*> sources;
    bool whole = true;
  };
  std::vector<Group> groups;
  std::vector<ArrayRef> other;  // arrays the run adds into some other way
  for (std::size_t k = first; k < first + count; ++k) {
    const auto* add = stmts[k].as<Atomic>();
    if (!add || !counts(add)) continue;
    const std::optional<RecordIndex> at = add->op == AtomicOp::Add ? run.field_of(add->index) : std::nullopt;
    if (!at) {
      other.push_back(add->array);
      continue;
    }
    Group* group = nullptr;
    for (Group& g : groups)
      if (g.any->array == add->array && g.at.size == at->size && run.same(*g.at.record, *at->record)) group = &g;
    if (!group) {
      groups.push_back({add, *at, std::vector<std::size_t>(static_cast<std::size_t>(at->size), count + first),
                        std::vector<const Load*>(static_cast<std::size_t>(at->size), nullptr)});
      group = &groups.back();
    }
    const auto f = static_cast<std::size_t>(at->offset);
    const auto* load = run.resolve(add->value).as<Load>();
    const std::optional<RecordIndex> from = load ? run.field_of(load->index) : std::nullopt;
    const bool field_for_field = from && from->size == at->size && from->offset == at->offset &&
                                 load->array.space == ArrayRef::Space::Param &&
                                 load->type.dtype == add->value->type.dtype;
    if (group->fields[f] != count + first || !field_for_field) group->whole = false;
    group->fields[f] = k;
    group->sources[f] = load;
  }
  std::vector<RecordAdd> out;
  for (const Group& g : groups) {
    bool whole = g.whole;
    for (std::size_t f = 0; whole && f < g.fields.size(); ++f) {
      whole = g.fields[f] != count + first && g.sources[f]->array == g.sources[0]->array &&
              run.same(*run.field_of(g.sources[f]->index)->record, *run.field_of(g.sources[0]->index)->record);
    }
    for (const Group& h : groups) whole = whole && (&h == &g || !(h.any->array == g.any->array));
    for (const ArrayRef& a : other) whole = whole && !(a == g.any->array);
    if (whole) out.push_back({g.at.size, g.fields, g.sources[0]});
  }
  return out;
}

}  // namespace tack::analysis
