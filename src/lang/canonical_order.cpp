// One order for the lets of a traced kernel (canonical_order.hpp says which, and why).
#include "lang/canonical_order.hpp"

#include "ir/memo_mutator.hpp"
#include "ir/node_set.hpp"
#include "ir/printer.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tack::lang::detail {
namespace {

using ExprSet = ir::NodeSet;

// The operators C++17 sequences left to right even when overloaded (<<, >>, &&, ||).
bool left_to_right(ir::OpCode op) {
  return op == ir::OpCode::Shl || op == ir::OpCode::Shr || op == ir::OpCode::And || op == ir::OpCode::Or;
}

// Calls f on an expression's operands in the order GCC evaluates them: a
// call's arguments (and so an overloaded operator's) right to left, but for
// left_to_right.
template <class F>
void each_operand(const ir::Expr& e, F&& f) {
  switch (e->kind) {
    case ir::ExprKind::Load: f(e.as<ir::Load>()->index); break;
    case ir::ExprKind::Op: {
      auto n = e.as<ir::Op>();
      if (left_to_right(n->op))
        for (const ir::Expr& a : n->args) f(a);
      else
        for (auto a = n->args.rbegin(); a != n->args.rend(); ++a) f(*a);
      break;
    }
    case ir::ExprKind::Select: {
      auto n = e.as<ir::Select>();
      f(n->if_false);
      f(n->if_true);
      f(n->cond);
      break;
    }
    case ir::ExprKind::Cast: f(e.as<ir::Cast>()->value); break;
    case ir::ExprKind::TexSample: {
      auto n = e.as<ir::TexSample>();
      f(n->w);
      f(n->v);
      f(n->u);
      break;
    }
    default: break;
  }
}

// The same for a statement's own expressions, as C++ evaluates them where the
// statement is made (empty handles included), then for the statements nested in it.
template <class E, class S>
void each_part(const ir::Stmt& s, E&& expr, S&& stmt) {
  switch (s->kind) {
    case ir::StmtKind::Block:
      for (const ir::Stmt& c : s.as<ir::Block>()->stmts) stmt(c);
      break;
    case ir::StmtKind::Let: expr(s.as<ir::Let>()->value); break;
    case ir::StmtKind::DeclareVar: expr(s.as<ir::DeclareVar>()->init); break;
    case ir::StmtKind::Assign: expr(s.as<ir::Assign>()->value); break;
    case ir::StmtKind::Store:  // a[i] = v: C++17 evaluates the right operand of an assignment first
      expr(s.as<ir::Store>()->value);
      expr(s.as<ir::Store>()->index);
      break;
    case ir::StmtKind::Atomic: {  // atomic_cas(a, i, compare, value): a call's arguments, right to left
      auto n = s.as<ir::Atomic>();
      expr(n->value);
      expr(n->compare);
      expr(n->index);
      break;
    }
    case ir::StmtKind::If: {
      auto n = s.as<ir::If>();
      expr(n->cond);
      stmt(n->then_case);
      stmt(n->else_case);
      break;
    }
    case ir::StmtKind::For: {
      auto n = s.as<ir::For>();
      expr(n->hi);
      expr(n->lo);
      stmt(n->body);
      break;
    }
    case ir::StmtKind::Loop: stmt(s.as<ir::Loop>()->body); break;
    case ir::StmtKind::GroupReduce: expr(s.as<ir::GroupReduce>()->value); break;
    case ir::StmtKind::Print: {  // print(format, a, b): a call's arguments, right to left
      const std::vector<ir::Expr>& args = s.as<ir::Print>()->args;
      for (auto a = args.rbegin(); a != args.rend(); ++a) expr(*a);
      break;
    }
    case ir::StmtKind::Break:
    case ir::StmtKind::Continue:
    case ir::StmtKind::Barrier: break;
  }
}

// Calls f on each Let id e reads, in evaluation order, each distinct node once.
template <class F>
void each_read(const ir::Expr& e, ExprSet& seen, F& f) {
  if (!e || !seen.insert(e.get()).second) return;
  if (auto r = e.as<ir::LetRef>()) return f(r->id);
  each_operand(e, [&](const ir::Expr& a) { each_read(a, seen, f); });
}

// The same for a statement and the statements nested in it.
template <class F>
void each_read(const ir::Stmt& s, ExprSet& seen, F& f) {
  if (!s) return;
  each_part(
      s, [&](const ir::Expr& e) { each_read(e, seen, f); }, [&](const ir::Stmt& c) { each_read(c, seen, f); });
}

// An expression's text without its Let ids, which follow the trace order.
std::string without_let_ids(const ir::Expr& e) {
  std::string text = ir::to_string(e), out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == 't' && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]))))
      while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
  }
  return out;
}

// Where a Let is first read after its run: the statement's index in the block,
// then the read's rank in that statement's evaluation order.
using Use = std::pair<std::size_t, std::size_t>;

// The Lets of one run in canonical order: by their first use after the run,
// each after the Lets of the run its own value reads; then the ones nothing
// after the run reads (a discarded expression's reads, whose trace order is
// the compiler's), by their text.
std::vector<ir::Stmt> ordered_run(const std::vector<ir::Stmt>& run, const std::unordered_map<int, Use>& first_use) {
  std::unordered_map<int, std::size_t> index;  // Let id -> position in run
  for (std::size_t i = 0; i < run.size(); ++i) index.emplace(run[i].as<ir::Let>()->id, i);
  std::vector<std::pair<Use, std::size_t>> used;
  std::vector<std::pair<std::string, std::size_t>> unused;
  for (std::size_t i = 0; i < run.size(); ++i) {
    auto it = first_use.find(run[i].as<ir::Let>()->id);
    if (it != first_use.end())
      used.emplace_back(it->second, i);
    else
      unused.emplace_back(std::string(), i);
  }
  std::sort(used.begin(), used.end());
  if (unused.size() > 1)
    for (auto& [text, i] : unused) text = without_let_ids(run[i].as<ir::Let>()->value);
  std::stable_sort(unused.begin(), unused.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  std::vector<bool> placed(run.size(), false);
  std::vector<ir::Stmt> out;
  std::function<void(int)> place = [&](int id) {
    auto it = index.find(id);
    if (it == index.end() || placed[it->second]) return;
    placed[it->second] = true;
    ExprSet seen;
    each_read(run[it->second].as<ir::Let>()->value, seen, place);
    out.push_back(run[it->second]);
  };
  for (const auto& [use, i] : used) place(run[i].as<ir::Let>()->id);
  for (const auto& [text, i] : unused) place(run[i].as<ir::Let>()->id);
  return out;
}

// Records the reads of the statement at index j of its block as first uses:
// the block is walked from its end, so the earliest use is written last.
// `seen` is scratch, kept allocated from statement to statement.
void note_uses(const ir::Stmt& s, std::size_t j, std::unordered_map<int, Use>& first_use, ExprSet& seen) {
  seen.clear();
  std::size_t rank = 0;
  auto note = [&](int id) {
    // Ranked where this statement first reads it (LetRefs of one id are distinct nodes): an entry of statement j
    // was made by this call, since each statement of the block is noted once.
    auto [it, fresh] = first_use.try_emplace(id, Use{j, rank});
    if (!fresh && it->second.first == j) return;
    it->second = {j, rank++};
  };
  each_read(s, seen, note);
}

// A block with its runs in canonical order. Nested blocks first, and the runs
// from the last to the first: a run's order follows the statements after it,
// which must be in their canonical order already.
ir::Stmt canonical(const ir::Stmt& s);

ir::Stmt canonical_block(const ir::Block* b) {
  std::vector<ir::Stmt> stmts;
  for (const ir::Stmt& s : b->stmts) stmts.push_back(canonical(s));
  auto is_let = [&](std::size_t i) { return stmts[i]->kind == ir::StmtKind::Let; };
  std::unordered_map<int, Use> first_use;
  ExprSet seen;
  for (std::size_t end = stmts.size(); end > 0;) {
    if (!is_let(end - 1)) {
      note_uses(stmts[end - 1], end - 1, first_use, seen);
      --end;
      continue;
    }
    std::size_t begin = end - 1;
    while (begin > 0 && is_let(begin - 1)) --begin;
    auto first = stmts.begin() + static_cast<std::ptrdiff_t>(begin);
    if (end - begin > 1) {
      std::vector<ir::Stmt> ordered = ordered_run({first, stmts.begin() + static_cast<std::ptrdiff_t>(end)}, first_use);
      std::copy(ordered.begin(), ordered.end(), first);
    }
    // The run's values read Lets of earlier runs too.
    for (std::size_t j = end; j > begin; --j) note_uses(stmts[j - 1], j - 1, first_use, seen);
    end = begin;
  }
  return ir::Block::make(std::move(stmts), b->loc);
}

ir::Stmt canonical(const ir::Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case ir::StmtKind::Block: return canonical_block(s.as<ir::Block>());
    case ir::StmtKind::If: {
      auto n = s.as<ir::If>();
      return ir::If::make(n->cond, canonical(n->then_case), canonical(n->else_case), n->loc);
    }
    case ir::StmtKind::For: {
      auto n = s.as<ir::For>();
      return ir::For::make(n->index, n->lo, n->hi, canonical(n->body), n->loc);
    }
    case ir::StmtKind::Loop: return ir::Loop::make(canonical(s.as<ir::Loop>()->body), s->loc);
    default: return s;
  }
}

// Each Let id in the order the statements define them (a For's index before its body).
void number_lets(const ir::Stmt& s, std::unordered_map<int, int>& ids) {
  if (!s) return;
  auto define = [&](int id) { ids.emplace(id, static_cast<int>(ids.size())); };
  switch (s->kind) {
    case ir::StmtKind::Let: define(s.as<ir::Let>()->id); break;
    case ir::StmtKind::For: define(s.as<ir::For>()->index); break;
    case ir::StmtKind::Atomic: define(s.as<ir::Atomic>()->result); break;
    case ir::StmtKind::GroupReduce: define(s.as<ir::GroupReduce>()->result); break;
    default: break;
  }
  each_part(
      s, [](const ir::Expr&) {}, [&](const ir::Stmt& c) { number_lets(c, ids); });
}

class Renumber : public ir::MemoMutator {
 public:
  explicit Renumber(const std::unordered_map<int, int>& ids) : ids_(ids) {}

 protected:
  int id(int old) const { return ids_.at(old); }
  ir::Expr visit(const ir::LetRef* n, const ir::Expr& self) override {
    return id(n->id) == n->id ? self : ir::LetRef::make(n->type, id(n->id));
  }
  ir::Stmt visit(const ir::Let* n, const ir::Stmt& self) override {
    ir::Expr v = mutate(n->value);
    return v.same_as(n->value) && id(n->id) == n->id ? self : ir::Let::make(id(n->id), v, n->loc);
  }
  ir::Stmt visit(const ir::For* n, const ir::Stmt& self) override {
    ir::Expr lo = mutate(n->lo), hi = mutate(n->hi);
    ir::Stmt body = mutate(n->body);
    if (lo.same_as(n->lo) && hi.same_as(n->hi) && body.same_as(n->body) && id(n->index) == n->index) return self;
    return ir::For::make(id(n->index), lo, hi, body, n->loc);
  }
  ir::Stmt visit(const ir::Atomic* n, const ir::Stmt& self) override {
    ir::Expr i = mutate(n->index), v = mutate(n->value), c = mutate(n->compare);
    if (i.same_as(n->index) && v.same_as(n->value) && c.same_as(n->compare) && id(n->result) == n->result) return self;
    return ir::Atomic::make(n->op, n->array, i, n->subscripts, v, c, id(n->result), n->loc);
  }
  ir::Stmt visit(const ir::GroupReduce* n, const ir::Stmt& self) override {
    ir::Expr v = mutate(n->value);
    return v.same_as(n->value) && id(n->result) == n->result ? self
                                                             : ir::GroupReduce::make(n->op, v, id(n->result), n->loc);
  }

 private:
  const std::unordered_map<int, int>& ids_;
};

}  // namespace

void canonicalize_order(ir::Kernel& k) {
  if (!k.body) return;
  k.body = canonical(k.body);
  std::unordered_map<int, int> ids;
  number_lets(k.body, ids);
  // A Let no statement defines (none in a finished trace) keeps a number after the others.
  for (int old = 0; old < static_cast<int>(k.lets.size()); ++old) ids.emplace(old, static_cast<int>(ids.size()));
  std::vector<ir::Type> lets(k.lets.size());
  for (const auto& [old, now] : ids) lets.at(static_cast<std::size_t>(now)) = k.lets.at(static_cast<std::size_t>(old));
  k.lets = std::move(lets);
  if (std::all_of(ids.begin(), ids.end(), [](const auto& i) { return i.first == i.second; })) return;
  Renumber renumber(ids);
  k.body = renumber.mutate(k.body);
}

}  // namespace tack::lang::detail
