// add_only_params / plan_private_adds: one walk over every access of the kernel (private_adds.hpp).
#include "analysis/private_adds.hpp"

#include "ir/visitor.hpp"
#include "ir/walk.hpp"

#include <unordered_set>

namespace tack::analysis {
namespace {
using namespace ir;

bool combinable(DType t) {
  switch (t) {
    case DType::I32:
    case DType::U32:
    case DType::I64:
    case DType::U64:
    case DType::F32:
    case DType::F64: return true;
    default: return false;
  }
}

}  // namespace

std::uint32_t add_only_params(const Kernel& k) {
  if (k.launch != LaunchKind::Parallel || k.dims.empty() || k.params.size() > 32) return 0;
  // Most kernels add nothing: they pay one walk of the statements (every traced kernel is asked).
  bool adds_into_a_param = false;
  for_each_stmt(k.body, [&](const Stmt& s) {
    const auto* at = s.as<Atomic>();
    adds_into_a_param = adds_into_a_param || (at && (at->op == AtomicOp::Add || at->op == AtomicOp::Sub) &&
                                              at->array.space == ArrayRef::Space::Param);
  });
  if (!adds_into_a_param) return 0;
  const std::unordered_set<int> read = lets_read(k.body);
  std::uint32_t adds = 0, other = 0;
  auto bit = [](const ArrayRef& a) {
    return a.space == ArrayRef::Space::Param ? std::uint32_t{1} << static_cast<unsigned>(a.index) : 0u;
  };
  for_each_stmt(k.body, [&](const Stmt& s) {
    for_each_own_access(s, [&](const ArrayRef& a, const Expr&) { other |= bit(a); });
    if (auto at = s.as<Atomic>()) {
      const bool add = (at->op == AtomicOp::Add || at->op == AtomicOp::Sub) && read.count(at->result) == 0;
      (add ? adds : other) |= bit(at->array);
    }
  });
  return adds & ~other;
}

std::vector<bool> plan_private_adds(const Kernel& typed, const RowScatter& rows) {
  std::vector<bool> out(typed.params.size(), false);
  if (rows.span >= 0) return out;
  const std::uint32_t adds = add_only_params(typed);
  if (!adds) return out;
  for (size_t p = 0; p < typed.params.size(); ++p)
    out[p] = (adds >> p & 1u) && typed.params[p].kind == ParamKind::Array && combinable(typed.params[p].dtype);
  return out;
}

}  // namespace tack::analysis
