// ir::NodeSet (the walks' visited set) and MemoMutator's flat memo: a node is new exactly once until the set is
// cleared, across growth, and keeps its insertion number; a memo returns the first rewrite of a node for every later
// visit, after forget() too for nodes seen again.
#include "ir/memo_mutator.hpp"
#include "ir/node_set.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace tack::ir;

std::vector<Expr> constants(int n) {
  std::vector<Expr> out;
  for (int i = 0; i < n; ++i) out.push_back(Const::make_int(Type::strong(tack::DType::I32), i));
  return out;
}

TEST(IrNodeSet, EachNodeIsNewOnceUntilCleared) {
  const std::vector<Expr> nodes = constants(5000);  // past several growths
  NodeSet seen;
  for (int round = 0; round < 3; ++round) {
    int fresh = 0, again = 0;
    for (const Expr& e : nodes) fresh += seen.insert(e.get()).second;
    for (const Expr& e : nodes) again += seen.insert(e.get()).second;
    EXPECT_EQ(fresh, 5000);
    EXPECT_EQ(again, 0);
    seen.clear();
  }
}

// Each node keeps the number of nodes inserted before it, across growth (the printer's back-references).
TEST(IrNodeSet, EachNodeKeepsItsInsertionNumber) {
  const std::vector<Expr> nodes = constants(3000);
  NodeSet seen;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeSet::Inserted first = seen.insert(nodes[i].get());
    EXPECT_TRUE(first.second);
    EXPECT_EQ(first.number, i);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) wrong += seen.insert(nodes[i].get()).number != i;
  EXPECT_EQ(wrong, 0u);
}

// Rewrites each constant to a new node, counting rewrites.
class Renumber : public MemoMutator {
 public:
  int rewrites = 0;

 protected:
  Expr rewrite(const Expr& e) override {
    ++rewrites;
    return Const::make_int(e->type, e.as<Const>()->i + 1000);
  }
};

TEST(IrNodeSet, AMemoRewritesEachNodeOnce) {
  const std::vector<Expr> nodes = constants(3000);
  Renumber m;
  std::vector<Expr> first;
  for (const Expr& e : nodes) first.push_back(m.mutate(e));
  for (std::size_t i = 0; i < nodes.size(); ++i) EXPECT_TRUE(m.mutate(nodes[i]).same_as(first[i])) << i;
  EXPECT_EQ(m.rewrites, 3000);
  m.forget();
  const Expr again = m.mutate(nodes[7]);
  EXPECT_EQ(m.rewrites, 3001);
  EXPECT_FALSE(again.same_as(first[7]));
  EXPECT_EQ(again.as<Const>()->i, 1007);
}

}  // namespace
