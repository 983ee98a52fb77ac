// A set of expression nodes by address, for walks that visit each node of a DAG once (ir::walk): one flat table
// that clear() keeps allocated, where std::unordered_set allocates a node per insertion and frees them all on
// clear. The optimizer's dead-code sweep walks every statement with a fresh set; those allocations were a tenth
// of optimizing a kernel, which a first call pays even when its code is in the disk cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tack::ir {

struct ExprNode;

// A hash of a node's address for open addressing (NodeSet, MemoMutator): its high bits, spread.
inline std::size_t address_hash(const ExprNode* n) {
  auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(n));
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(h >> 32);
}

class NodeSet {
 public:
  struct Inserted {
    bool second;         // whether n was new, as std::unordered_set::insert's
    std::size_t number;  // how many nodes were inserted before n (the printer's back-references)
  };

  Inserted insert(const ExprNode* n) {
    if ((used_.size() + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = address_hash(n) & mask;
    for (; slots_[s] != nullptr; s = (s + 1) & mask)
      if (slots_[s] == n) return {false, numbers_[s]};
    slots_[s] = n;
    numbers_[s] = used_.size();
    used_.push_back(s);
    return {true, numbers_[s]};
  }

  void clear() {
    for (std::size_t s : used_) slots_[s] = nullptr;
    used_.clear();
  }

 private:
  void grow() {
    std::vector<const ExprNode*> old;
    old.reserve(used_.size());
    for (std::size_t s : used_) old.push_back(slots_[s]);
    slots_.assign(slots_.empty() ? 64 : slots_.size() * 2, nullptr);
    numbers_.resize(slots_.size());
    used_.clear();
    const std::size_t mask = slots_.size() - 1;
    for (const ExprNode* n : old) {  // in the order they were inserted, so each keeps its number
      std::size_t s = address_hash(n) & mask;
      while (slots_[s] != nullptr) s = (s + 1) & mask;
      slots_[s] = n;
      numbers_[s] = used_.size();
      used_.push_back(s);
    }
  }

  std::vector<const ExprNode*> slots_;
  std::vector<std::size_t> numbers_;  // by slot: the Inserted::number of its node
  std::vector<std::size_t> used_;     // the slots holding a node, in the order they were inserted
};

}  // namespace tack::ir
