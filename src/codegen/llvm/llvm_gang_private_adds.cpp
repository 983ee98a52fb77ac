// The CPU code generator's SIMD path, a gang's adds into private copies (analysis/private_adds.hpp): a run of
// such adds is one pass over the lanes, each lane's adds in turn, a record added into a record as one short
// vector (analysis/record_adds.hpp). A run at the top of the kernel body passes over a gang's lanes one gang
// late, reading what it adds from slots the gang before wrote: no read waits on a store just made.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "analysis/record_adds.hpp"
#include "codegen/llvm/llvm_ops.hpp"
#include "ir/check.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include <algorithm>

namespace tack::codegen::detail {

using llvm::Value;

// How many statements from stmts[first] run as one pass over the lanes of private adds (0 where none do): two or
// more adds into private copies and the Lets between them, ending at an add. No Let reads what such an add writes
// or returns (the array is only ever added into, the old values never read), so the Lets run first.
std::size_t KernelEmitter::private_adds_run(const std::vector<ir::Stmt>& stmts, std::size_t first) const {
  std::size_t adds = 0, end = 0;
  for (std::size_t k = first; k < stmts.size(); ++k) {
    const ir::Stmt& s = stmts[k];
    if (const auto* a = s.as<ir::Atomic>(); a && private_add(a)) {
      ++adds;
      end = k + 1;
    } else if (s->kind != ir::StmtKind::Let) {
      break;
    }
  }
  return adds > 1 ? end - first : 0;
}

// The run's Lets, emitted, and its adds as values (no slots yet). An element gets the same adds, in another order,
// which adds never promised.
KernelEmitter::PrivateAdds KernelEmitter::private_adds_of(const std::vector<ir::Stmt>& stmts, std::size_t first,
                                                          std::size_t count) {
  PrivateAdds run;
  lets_then_adds(stmts, first, count, [&](const ir::Atomic* n) {
    run.adds.push_back({n, {expr(n->index), nullptr}, {converted(n->value, array_dtype(n->array)), nullptr}});
  });
  run.records.resize(run.adds.size());
  auto add_of = [&](std::size_t statement) {
    std::size_t a = 0;
    while (run.adds[a].n != stmts[statement].get()) ++a;
    return a;
  };
  for (const analysis::RecordAdd& r :
       analysis::record_adds(stmts, first, count, [&](const ir::Atomic* n) { return private_add(n); })) {
    const std::size_t field0 = add_of(r.fields[0]);
    if (array_dtype(run.adds[field0].n->array) != array_dtype(r.source->array)) continue;
    begin_statement({&r.source->index});
    // The gang's own records (k-means' points[8 * i + f]): lane l's starts at lane 0's plus size * l, an address
    // the unrolled lane loop folds into a displacement, where a stack slot costs a load per lane (4% of k-means).
    Value* index = converted(r.source->index, DType::I64);
    const bool own = is_vec(index) && lanes_->lane_stride(r.source->index) == r.size;
    for (std::size_t statement : r.fields) run.adds[add_of(statement)].in_record = true;
    run.records[field0] = PrivateAdds::Record{r.size,
                                              &r.source->array,
                                              {own ? nullptr : index, nullptr},
                                              own ? b_.CreateExtractElement(index, std::uint64_t{0}) : nullptr};
  }
  return run;
}

// The run's adds for the lanes of `bits`, lane after lane: one loop over the lanes instead of one per add
// (k-means' nine adds per point, bench kmeans).
void KernelEmitter::private_adds_pass(const PrivateAdds& run, Value* bits) {
  using Record = PrivateAdds::Record;
  auto each_lane = [&](Value* lane) {
    auto pick = [&](const Lanes& x) { return x.at(b_, lane); };
    auto index_at = [&](const PrivateAdds::Add& a) {
      return emit_cast(b_, a.n->index->type.dtype, DType::I64, pick(a.index));
    };
    auto record_start = [&](const Record& r) {
      if (!r.first) return pick(r.start);
      return b_.CreateAdd(r.first, b_.CreateMul(b_.CreateZExt(lane, b_.getInt64Ty()), b_.getInt64(r.size)));
    };
    for (std::size_t i = 0; i < run.adds.size(); ++i) {
      const PrivateAdds::Add& a = run.adds[i];
      if (const std::optional<Record>& r = run.records[i]) {
        const DType t = array_dtype(a.n->array);
        llvm::Type* vt = llvm::FixedVectorType::get(memory_type(c_, t), static_cast<unsigned>(r->size));
        Value* into = element_ptr(a.n->array, index_at(a));
        Value* args[2] = {b_.CreateAlignedLoad(vt, into, element_align(t)),
                          b_.CreateAlignedLoad(vt, element_ptr(*r->source, record_start(*r)), element_align(t))};
        b_.CreateAlignedStore(emit_op(b_, ir::OpCode::Add, t, args, false), into, element_align(t));
      } else if (!a.in_record) {
        plain_add_at(a.n, element_ptr(a.n->array, index_at(a)), pick(a.value));
      }
    }
  };
  // Written out lane by lane while the body stays short (k-means: 16 lanes of a record and a count), which LLVM
  // unrolled only by four, each lane's index and test computed.
  constexpr std::size_t kUnrolledAdds = 256;
  if (static_cast<std::size_t>(gang_) * run.adds.size() <= kUnrolledAdds)
    for_each_lane_of_unrolled(bits, each_lane);
  else
    for_each_lane_of(bits, each_lane);
}

void KernelEmitter::gang_private_adds(const std::vector<ir::Stmt>& stmts, std::size_t first, std::size_t count) {
  PrivateAdds run = private_adds_of(stmts, first, count);
  const auto lag = std::find_if(lagged_adds_.begin(), lagged_adds_.end(),
                                [&](const LaggedAdds& l) { return l.head == stmts[first].get(); });
  if (lag == lagged_adds_.end()) {
    for (PrivateAdds::Add& a : run.adds) {
      a.index = lanes_of(a.index.value);
      if (!a.in_record) a.value = lanes_of(a.value.value);
    }
    for (std::optional<PrivateAdds::Record>& r : run.records)
      if (r && !r->first) r->start = lanes_of(r->start.value);
    private_adds_pass(run, running_bits());
    return;
  }
  // Slots for what a gang's adds read, made once (in the entry block): a vector where the value varies, none
  // where it is a constant; a uniform value is spread over the lanes.
  LaggedAdds& l = *lag;
  auto slot_for = [&](Lanes& x, Value* v) {
    x = {v, nullptr};
    if (!v || llvm::isa<llvm::Constant>(v)) return;
    llvm::Type* vt = is_vec(v) ? v->getType() : vec(v->getType());
    x = {llvm::PoisonValue::get(vt), entry_alloca(vt, "waiting")};
  };
  if (!l.made) {
    l.shape = run;
    l.firsts.assign(run.adds.size(), nullptr);
    for (PrivateAdds::Add& a : l.shape.adds) {
      slot_for(a.index, a.index.value);
      slot_for(a.value, a.in_record ? nullptr : a.value.value);
    }
    for (std::size_t i = 0; i < run.adds.size(); ++i)
      if (std::optional<PrivateAdds::Record>& r = l.shape.records[i]) {
        slot_for(r->start, r->start.value);
        if (r->first) l.firsts[i] = entry_alloca(b_.getInt64Ty(), "waiting.first");
        r->first = nullptr;
      }
    l.made = true;
  }
  // The gang before's adds, then this gang's values into the slots they were read from.
  private_adds_pass(waiting_adds(static_cast<std::size_t>(lag - lagged_adds_.begin())),
                    b_.CreateLoad(b_.getInt64Ty(), l.bits));
  auto keep = [&](const Lanes& slot, Value* v) {
    if (slot.slot) b_.CreateStore(splat(v), slot.slot);
  };
  for (std::size_t i = 0; i < run.adds.size(); ++i) {
    keep(l.shape.adds[i].index, run.adds[i].index.value);
    if (!run.adds[i].in_record) keep(l.shape.adds[i].value, run.adds[i].value.value);
    if (const std::optional<PrivateAdds::Record>& r = run.records[i]) {
      keep(l.shape.records[i]->start, r->start.value);
      if (r->first) b_.CreateStore(r->first, l.firsts[i]);
    }
  }
  b_.CreateStore(running_bits(), l.bits);
}

// A lagged run's waiting adds, its records' first elements read from their slots here.
KernelEmitter::PrivateAdds KernelEmitter::waiting_adds(std::size_t lag) {
  const LaggedAdds& l = lagged_adds_[lag];
  PrivateAdds waiting = l.shape;
  for (std::size_t i = 0; i < waiting.records.size(); ++i)
    if (l.firsts[i]) waiting.records[i]->first = b_.CreateLoad(b_.getInt64Ty(), l.firsts[i]);
  return waiting;
}

// The runs of private adds at the top of a parallel kernel's body whose record sources the kernel never writes:
// their passes lag a gang behind. A gang's pass right after its stores of the lanes' indices read them back at
// once (a 512-bit store read as 64-bit loads: k-means' adds 1.5 ns a point, against 0.8 read from older stores).
void KernelEmitter::plan_lagged_adds() {
  const auto* body = k_.body.as<ir::Block>();
  if (!gang_ || !body || k_.launch != ir::LaunchKind::Parallel) return;
  for (std::size_t i = 0; i < body->stmts.size(); ++i) {
    if (const std::size_t row = row_adds(body->stmts, i); row > 1) {  // emit_block's order of plans
      i += row - 1;
      continue;
    }
    const std::size_t n = private_adds_run(body->stmts, i);
    if (n == 0) continue;
    bool sources_kept = true;
    for (const analysis::RecordAdd& r :
         analysis::record_adds(body->stmts, i, n, [&](const ir::Atomic* a) { return private_add(a); }))
      sources_kept = sources_kept && !source_written(r.source->array);
    if (sources_kept) {
      LaggedAdds lag;
      lag.head = body->stmts[i].get();
      lag.bits = entry_alloca(b_.getInt64Ty(), "waiting.lanes");
      lagged_adds_.push_back(std::move(lag));
    }
    i += n - 1;
  }
}

// Before a row: no gang's adds wait.
void KernelEmitter::begin_lagged_adds() {
  for (const LaggedAdds& l : lagged_adds_) b_.CreateStore(b_.getInt64(0), l.bits);
}

// After a row: its last gang's adds.
void KernelEmitter::end_lagged_adds() {
  for (std::size_t i = 0; i < lagged_adds_.size(); ++i)
    if (lagged_adds_[i].made) private_adds_pass(waiting_adds(i), b_.CreateLoad(b_.getInt64Ty(), lagged_adds_[i].bits));
}

}  // namespace tack::codegen::detail
