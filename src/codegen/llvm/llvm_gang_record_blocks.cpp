// The CPU code generator's SIMD path, the gang's own record blocks: fields of records read one per lane, where
// lane l's record is record i + l of an array the kernel never writes (k-means' points[8 * i + f], i the launch
// index), are loaded at the top of each gang, once, by a plain load where every lane runs and the block lies inside
// the array. A field read in a loop (k-means' distances, in the loop over the centres) could only take the masked
// load there, whose mask the gang then computed before its first distance.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <algorithm>
#include <functional>

namespace tack::codegen::detail {

using llvm::Value;

// By array parameter: whether the kernel stores or atomically writes into it anywhere. One walk of the body,
// made when first asked.
const std::vector<bool>& KernelEmitter::written_params() {
  if (written_params_) return *written_params_;
  written_params_.emplace(k_.params.size(), false);
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& s) {
    const ir::ArrayRef* into = nullptr;
    if (const auto* st = s.as<ir::Store>()) into = &st->array;
    if (const auto* at = s.as<ir::Atomic>()) into = &at->array;
    if (into && into->space == ir::ArrayRef::Space::Param)
      (*written_params_)[static_cast<std::size_t>(into->index)] = true;
  });
  return *written_params_;
}

// Whether the kernel writes array a anywhere (a block loaded at the top of a gang, or a lagged record add's
// source, is read before what the gang writes). Any array but a parameter counts as written.
bool KernelEmitter::source_written(const ir::ArrayRef& a) {
  return a.space != ir::ArrayRef::Space::Param || written_params()[static_cast<std::size_t>(a.index)];
}

// Whether a read of field f reads the gang's own records: record number the innermost launch index.
bool KernelEmitter::own_records(const RecordField& f) const {
  const auto* x = f.record ? f.record->as<ir::LoopIndex>() : nullptr;
  return x && x->dim == static_cast<int>(k_.dims.size()) - 1;
}

// The block planned for reads of field f of a's own records, or null.
const KernelEmitter::GangBlock* KernelEmitter::planned_block(const ir::ArrayRef& a, const RecordField& f) const {
  if (!own_records(f)) return nullptr;
  for (const GangBlock& g : gang_blocks_)
    if (g.array == a && g.size == f.size && g.block_offset == f.block_offset) return &g;
  return nullptr;
}

// The blocks the body reads outside an If and a while loop (a read a gang may never make would cost every gang a
// block): a field of the gang's own records by the innermost launch index, of an array parameter the kernel never
// writes. Every read of the same records then takes the block, an If's too.
void KernelEmitter::plan_gang_blocks() {
  if (!gang_ || k_.launch != ir::LaunchKind::Parallel) return;
  // Arrays that may overlap: a write into another may change the block (unless the kernel writes none).
  const std::vector<bool>& written = written_params();
  if (!distinct_arrays_ && std::find(written.begin(), written.end(), true) != written.end()) return;
  auto note = [&](const ir::Load* n) {
    if (source_written(n->array)) return;
    const std::optional<RecordField> f = record_field(n->index);
    if (!f || !own_records(*f) || planned_block(n->array, *f)) return;
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
  const GangBlock* g = planned_block(a, f);
  return g ? g->block : nullptr;
}

}  // namespace tack::codegen::detail
