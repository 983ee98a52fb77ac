// The CPU code generator's SIMD path, the gang's own record blocks: fields of records read one per lane, where
// lane l's record is record i + l of an array the kernel never writes (k-means' points[8 * i + f], i the launch
// index), are loaded at the top of each gang, once, by a plain load where every lane runs and the block lies inside
// the array. A field read in a loop (k-means' distances, in the loop over the centres) could only take the masked
// load there, whose mask the gang then computed before its first distance.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <functional>

namespace tack::codegen::detail {

using llvm::Value;

// Whether the body stores or atomically writes into parameter a (into any parameter where a is null).
namespace {
bool writes(const ir::Stmt& body, const ir::ArrayRef* a) {
  bool written = false;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    const ir::ArrayRef* into = nullptr;
    if (const auto* st = s.as<ir::Store>()) into = &st->array;
    if (const auto* at = s.as<ir::Atomic>()) into = &at->array;
    written = written || (into && into->space == ir::ArrayRef::Space::Param && (!a || *into == *a));
  });
  return written;
}
}  // namespace

// Whether the kernel writes array a anywhere (a block loaded at the top of a gang, or a lagged record add's
// source, is read before what the gang writes). Any array but a parameter counts as written.
bool KernelEmitter::source_written(const ir::ArrayRef& a) const {
  return a.space != ir::ArrayRef::Space::Param || writes(k_.body, &a);
}

bool KernelEmitter::writes_a_param() const { return writes(k_.body, nullptr); }

// The blocks the body reads outside an If and a while loop (a read a gang may never make would cost every gang a
// block): a field of the gang's own records by the innermost launch index, of an array parameter the kernel never
// writes. Every read of the same records then takes the block, an If's too.
void KernelEmitter::plan_gang_blocks() {
  // Arrays that may overlap: a write into another may change the block (unless the kernel writes none).
  if (!gang_ || k_.launch != ir::LaunchKind::Parallel || (!distinct_arrays_ && writes_a_param())) return;
  const int innermost = static_cast<int>(k_.dims.size()) - 1;
  auto note = [&](const ir::Load* n) {
    if (n->array.space != ir::ArrayRef::Space::Param || source_written(n->array)) return;
    const std::optional<RecordField> f = record_field(n->index);
    const auto* x = f ? f->record->as<ir::LoopIndex>() : nullptr;
    if (!x || x->dim != innermost) return;
    for (const GangBlock& g : gang_blocks_)
      if (g.array == n->array && g.size == f->size && g.block_offset == f->block_offset) return;
    gang_blocks_.push_back({n->array, f->size, f->block_offset});
  };
  std::function<void(const ir::Stmt&)> visit = [&](const ir::Stmt& s) {
    if (const auto* b = s.as<ir::Block>()) {
      for (const ir::Stmt& c : b->stmts) visit(c);
      return;
    }
    if (s->kind == ir::StmtKind::If || s->kind == ir::StmtKind::Loop) return;
    std::unordered_set<const ir::ExprNode*> seen;
    for (const ir::Expr& e : ir::own_exprs(s))
      ir::walk(e, seen, [&](const ir::Expr& x) {
        if (const auto* load = x.as<ir::Load>()) note(load);
      });
    if (const auto* loop = s.as<ir::For>()) visit(loop->body);
  };
  visit(k_.body);
}

// At the top of a gang starting at launch index `gang_start`: its blocks.
void KernelEmitter::load_gang_blocks(Value* gang_start) {
  for (GangBlock& g : gang_blocks_) {
    Value* start = b_.CreateAdd(b_.CreateMul(gang_start, b_.getInt64(g.size)), b_.getInt64(g.block_offset));
    g.block = record_block(g.array, g.size, start, true);
  }
}

// After the gang loop: no block is this gang's.
void KernelEmitter::drop_gang_blocks() {
  for (GangBlock& g : gang_blocks_) g.block = nullptr;
}

Value* KernelEmitter::gang_block(const ir::ArrayRef& a, const RecordField& f) const {
  const auto* x = f.record ? f.record->as<ir::LoopIndex>() : nullptr;
  if (!x || x->dim != static_cast<int>(k_.dims.size()) - 1) return nullptr;
  for (const GangBlock& g : gang_blocks_)
    if (g.block && g.array == a && g.size == f.size && g.block_offset == f.block_offset) return g.block;
  return nullptr;
}

}  // namespace tack::codegen::detail
