// forward_own_element_stores: one walk per block, remembering per own array the value last stored and whether it
// has been read since; nested statements that touch the array end what the block knows of it.
#include "autodiff/own_element_stores.hpp"

#include "autodiff/analysis.hpp"
#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <map>
#include <optional>

namespace tack::autodiff {
namespace {
using namespace ir;

class Forwarding {
 public:
  Forwarding(Kernel& k, const std::vector<bool>& own) : k_(k), own_(own) {}

  Stmt block(const Stmt& s) {
    if (!s) return s;
    struct Known {
      Expr value;                    // what the element holds, if known
      std::optional<size_t> unread;  // the last store, while nothing has read it
    };
    std::map<int, Known> known;
    std::vector<Stmt> out;
    std::vector<bool> dropped;
    auto owned = [&](const ArrayRef& a) {
      return a.space == ArrayRef::Space::Param && own_[static_cast<size_t>(a.index)];
    };
    for (const Stmt& item : block_items(s)) {
      if (auto l = item.as<Let>()) {
        if (auto load = l->value.as<Load>(); load && owned(load->array)) {
          Known& kn = known[load->array.index];
          if (kn.value) {
            out.push_back(Let::make(l->id, kn.value, item->loc));
            dropped.push_back(false);
            continue;
          }
          kn.unread.reset();  // read from memory: the last store is needed
        }
        out.push_back(item);
        dropped.push_back(false);
        continue;
      }
      if (auto st = item.as<Store>(); st && owned(st->array)) {
        Known& kn = known[st->array.index];
        if (kn.unread) dropped[*kn.unread] = true;  // overwritten before anything read it
        Expr value = st->value;
        if (!value.as<Const>() && !value.as<LetRef>()) {
          // Held in a Let, so that forwarding it later reads the value stored, whatever Vars do meanwhile.
          const int id = new_let(k_, value->type);
          out.push_back(Let::make(id, value, item->loc));
          dropped.push_back(false);
          value = LetRef::make(value->type, id);
        }
        out.push_back(Store::make(st->array, st->index, st->subscripts, value, item->loc));
        dropped.push_back(false);
        kn = Known{value, out.size() - 1};
        continue;
      }
      // Anything else that touches an own array (an atomic, a nested block): nothing is known of it afterwards,
      // and its last store may be read there.
      for (auto& [param, kn] : known)
        if (touches(item, param)) kn = Known{};
      out.push_back(nested(item));
      dropped.push_back(false);
    }
    std::vector<Stmt> kept;
    for (size_t i = 0; i < out.size(); ++i)
      if (!dropped[i]) kept.push_back(out[i]);
    return Block::make(std::move(kept), s->loc);
  }

 private:
  static bool touches(const Stmt& s, int param) {
    bool hit = false;
    for_each_stmt(s, [&](const Stmt& x) {
      auto is = [&](const ArrayRef& a) { return a.space == ArrayRef::Space::Param && a.index == param; };
      if (auto l = x.as<Let>())
        if (auto load = l->value.as<Load>()) hit |= is(load->array);
      if (auto st = x.as<Store>()) hit |= is(st->array);
      if (auto at = x.as<Atomic>()) hit |= is(at->array);
    });
    return hit;
  }

  Stmt nested(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::If: {
        auto n = s.as<If>();
        return If::make(n->cond, block(n->then_case), n->else_case ? block(n->else_case) : Stmt{}, s->loc);
      }
      case StmtKind::For: {
        auto n = s.as<For>();
        return For::make(n->index, n->lo, n->hi, block(n->body), s->loc);
      }
      default: return s;
    }
  }

  Kernel& k_;
  const std::vector<bool>& own_;
};

}  // namespace

Stmt forward_own_element_stores(Kernel& k, const Stmt& body, const std::vector<bool>& own) {
  return Forwarding(k, own).block(body);
}

}  // namespace tack::autodiff
